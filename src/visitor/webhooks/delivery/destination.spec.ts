import { checkDestination, DestinationCache, Resolver } from './destination';

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

describe('checked destinations of the delivery path (DestinationCache)', () => {
  /** A resolver that answers `answer.address` and counts its lookups. */
  function playedDns(address: string) {
    const dns = { address, lookups: 0 };
    const resolver: Resolver = async () => {
      dns.lookups++;
      return [{ address: dns.address, family: 4 }];
    };
    return { dns, cache: new DestinationCache(() => ({ ...strict, resolver }), 5_000) };
  }

  it('checks a URL once per period, then again: a DNS answer that turned private is refused', async () => {
    const { dns, cache } = playedDns('93.184.216.34');
    const url = 'https://hooks.example.com/h';
    await expect(cache.get(url, 0)).resolves.toMatchObject({ address: '93.184.216.34' });
    dns.address = '10.0.0.9';
    await expect(cache.get(url, 4_999)).resolves.toMatchObject({ address: '93.184.216.34' });
    expect(dns.lookups).toBe(1);
    await expect(cache.get(url, 5_000)).resolves.toEqual({
      error: 'destination refused: host hooks.example.com resolves to a non-public address (10.0.0.9)',
    });
    expect(dns.lookups).toBe(2);
  });

  it('checks a changed URL afresh, and keeps no refusal', async () => {
    const { dns, cache } = playedDns('10.0.0.9');
    await expect(cache.get('https://a.example.com/h', 0)).resolves.toHaveProperty('error');
    dns.address = '93.184.216.34';
    await expect(cache.get('https://a.example.com/h', 1)).resolves.toMatchObject({
      address: '93.184.216.34',
    });
    await expect(cache.get('https://b.example.com/h', 2)).resolves.toMatchObject({
      address: '93.184.216.34',
    });
    await expect(cache.get('http://b.example.com/h', 3)).resolves.toEqual({
      error: 'destination refused: must use https',
    });
    expect(dns.lookups).toBe(3);
  });

  it('sends at once to an unchecked URL share one check; clear() forgets every check', async () => {
    const { dns, cache } = playedDns('93.184.216.34');
    const url = 'https://hooks.example.com/h';
    await Promise.all([cache.get(url, 0), cache.get(url, 0), cache.get(url, 1)]);
    expect(dns.lookups).toBe(1);
    cache.clear();
    await cache.get(url, 2);
    expect(dns.lookups).toBe(2);
  });

  it('connects to the checked address whatever name the socket asks for', async () => {
    const { cache } = playedDns('93.184.216.34');
    const checked = await cache.get('https://hooks.example.com/h', 0);
    if ('error' in checked) throw new Error(checked.error);
    const answer = await new Promise((resolve) =>
      checked.lookup('elsewhere.example', {}, (_e, address, family) => resolve({ address, family })),
    );
    expect(answer).toEqual({ address: '93.184.216.34', family: 4 });
  });
});
