import { redirectUriProblem } from './redirect-uris';
import { basicSecret } from './oauth-adapter';

describe('redirect URI rule', () => {
  it.each([
    'https://app.example.com/cb',
    'https://app.example.com:8443/cb?x=1',
    'http://localhost:7777/cb',
    'http://127.0.0.1/cb',
    'http://[::1]:9000/cb',
  ])('accepts %s', (uri) => expect(redirectUriProblem(uri)).toBeNull());

  it.each([
    ['http://app.example.com/cb', /https/],
    ['http://localhost.evil.com/cb', /https/],
    ['http://10.0.0.1/cb', /https/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://user:pw@app.example.com/cb', /user name/],
    ['custom-scheme://cb', /https/],
    ['/relative', /absolute/],
  ])('refuses %s', (uri, why) => expect(redirectUriProblem(uri)).toMatch(why));
});

describe('HTTP Basic client credentials', () => {
  const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;
  it('reads the client id and secret, undoing the form encoding', () => {
    expect(basicSecret(basic('app_1:s%3Acret+x'))).toEqual({ clientId: 'app_1', secret: 's:cret x' });
  });
  it('ignores other schemes and malformed values', () => {
    expect(basicSecret('Bearer x')).toBeNull();
    expect(basicSecret(basic('no-colon'))).toBeNull();
    expect(basicSecret(undefined)).toBeNull();
  });
});
