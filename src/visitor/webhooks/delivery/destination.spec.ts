import { checkDestination, checkedDestination, Resolver } from './destination';

const strict = { allowLocalTargets: false };
const resolverOf =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook destination rules', () => {
  it.each([
    ['http://hooks.example.com/x', 'must use https'],
    ['https://user:pw@hooks.example.com/x', 'must not contain a user name or password'],
    ['https://10.0.0.1/x', 'non-public address (10.0.0.1)'],
    ['https://[::1]/x', 'non-public address (::1)'],
    ['https://[::ffff:127.0.0.1]/x', 'non-public address'],
    ['https://169.254.169.254/latest/meta-data', 'non-public address'],
    ['not a url', 'must be an absolute URL'],
    // IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) forms of 127.0.0.1
    ['https://[::127.0.0.1]/', 'non-public address (::7f00:1)'],
    ['https://[::7f00:1]/', 'non-public address (::7f00:1)'],
    ['https://[::ffff:0:7f00:1]/', 'non-public address (::ffff:0:7f00:1)'],
    ['https://[64:ff9b::7f00:1]/', 'non-public address'],
    ['https://[3fff::1]/', 'non-public address'],
  ])('refuses %s', async (url, message) => {
    await expect(checkDestination(url, { ...strict, resolver: resolverOf('93.184.216.34') })).rejects.toThrow(
      message,
    );
  });

  it('refuses a host name that resolves to 127.0.0.1', async () => {
    await expect(
      checkDestination('https://sneaky.example.com/h', { ...strict, resolver: resolverOf('127.0.0.1') }),
    ).rejects.toThrow('non-public');
  });

  it('refuses a host that answers public first and private second (every address is checked)', async () => {
    await expect(
      checkDestination('https://rebind.example.com/h', {
        ...strict,
        resolver: resolverOf('93.184.216.34', '10.1.2.3'),
      }),
    ).rejects.toThrow('10.1.2.3');
  });

  it('accepts a public https host', async () => {
    await expect(
      checkDestination('https://hooks.example.com/h', {
        ...strict,
        resolver: resolverOf('93.184.216.34', '2606:2800:220:1::1'),
      }),
    ).resolves.toBeInstanceOf(URL);
  });

  it('allows http and loopback only with the development flag', async () => {
    await expect(
      checkDestination('http://127.0.0.1:8080/h', { allowLocalTargets: true }),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('http://10.0.0.1/h', { allowLocalTargets: true })).rejects.toThrow(
      'non-public',
    );
  });
});

describe('checked destinations of the delivery path', () => {
  it('connects to the checked address whatever name the socket asks for', async () => {
    const resolver: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const checked = await checkedDestination('https://hooks.example.com/h', { ...strict, resolver });
    if ('error' in checked) throw new Error(checked.error);
    const answer = await new Promise((resolve) =>
      checked.request.lookup!('elsewhere.example', {}, (_e, address, family) => resolve({ address, family })),
    );
    expect(answer).toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('reports a refusal as the delivery error, never throws', async () => {
    const resolver: Resolver = async () => [{ address: '10.0.0.9', family: 4 }];
    await expect(checkedDestination('https://hooks.example.com/h', { ...strict, resolver })).resolves.toEqual(
      {
        error: 'destination refused: host hooks.example.com resolves to a non-public address (10.0.0.9)',
      },
    );
  });
});
