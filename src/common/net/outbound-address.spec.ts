import { isGlobalUnicast, isLoopback, resolveOutbound } from './outbound-address';

describe('outbound address rule (globally routable unicast only)', () => {
  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
  ])('accepts %s', (a) => expect(isGlobalUnicast(a)).toBe(true));

  it.each([
    // IPv4 special-purpose ranges
    '0.0.0.0',
    '0.1.2.3',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.5.4',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6 outside 2000::/3: every embedding of an IPv4 address, local and multicast blocks
    '::',
    '::1',
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::1',
    '100::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    // IPv6 special-purpose blocks inside 2000::/3
    '2001::1',
    '2001:2::1',
    '2001:10::1',
    '2001:db8::1',
    '2002:7f00:1::1',
    '3fff::1',
    '5f00::1',
    // not an address
    'localhost',
    '',
    '1.2.3',
  ])('refuses %s', (a) => expect(isGlobalUnicast(a)).toBe(false));

  it('knows loopback in every form the connection could take', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a)).toBe(true);
    for (const a of ['::7f00:1', '10.0.0.1', '8.8.8.8']) expect(isLoopback(a)).toBe(false);
  });

  it('checks every address a name resolves to, and loopback only when allowed', async () => {
    const resolver = async () => [
      { address: '93.184.216.34', family: 4 as const },
      { address: '::7f00:1', family: 6 as const },
    ];
    await expect(resolveOutbound('mixed.example', { allowLoopback: true, resolver })).rejects.toThrow(
      'host mixed.example resolves to a non-public address (::7f00:1)',
    );
    await expect(resolveOutbound('[::1]', { allowLoopback: true })).resolves.toEqual({
      address: '::1',
      family: 6,
    });
    await expect(resolveOutbound('[::1]', { allowLoopback: false })).rejects.toThrow('non-public');
    await expect(
      resolveOutbound('nothing.example', { allowLoopback: false, resolver: async () => [] }),
    ).rejects.toThrow('host nothing.example does not resolve');
  });
});
