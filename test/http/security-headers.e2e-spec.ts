import { createHash } from 'node:crypto';
import { AddressInfo, connect } from 'node:net';
import { bootTestApp, TestApp } from '../harness';
import { createOrg } from '../support/platform-fixtures';

/** One raw HTTP/1.1 exchange (so a header can be sent twice); resolves with the status line and the body. */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`${[...lines, 'Host: x', 'Connection: close'].join('\r\n')}\r\n\r\n`),
    );
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
    );
  });
}

/** Security response headers: on /v1, /console and /docs in full, on /public/v1 only nosniff (and HSTS). */
describe('security response headers', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { TRUST_PROXY: 'true' } });
    key = await (await createOrg(t.app)).key();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  it('/v1 answers, success and error alike, are not cached, sniffed, framed or sent as a referrer', async () => {
    for (const res of [
      await get('/v1/organisation', { authorization: `Bearer ${key}` }),
      await get('/v1/organisation'),
      await get('/v1/no-such-route'),
    ]) {
      expect(res.headers).toMatchObject({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['strict-transport-security']).toBeUndefined(); // plain HTTP
    }
  });

  it('console answers are not cached either', async () => {
    const res = await get('/console/session');
    expect(res.headers).toMatchObject({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
  });

  // The Scalar reference pages (/docs/visitor/, /docs/public/) have their own CSP: test/project/docs.e2e-spec.ts.
  it('HTML pages get a strict Content-Security-Policy that still allows exactly their inline styles', async () => {
    for (const page of ['/docs', '/docs/errors']) {
      const res = await get(page);
      expect(res.statusCode).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      // The page uses no script and no style attribute; each inline <style> element is allowed by its hash.
      expect(res.body).not.toMatch(/<script|\sstyle=/i);
      const styles = [...res.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
      expect(styles.length).toBeGreaterThan(0);
      for (const css of styles)
        expect(csp).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
    }
  });

  it('Strict-Transport-Security is sent when the request came over HTTPS (TRUST_PROXY)', async () => {
    for (const url of ['/v1/organisation', '/docs', '/public/v1/campaigns', '/health/live']) {
      const res = await get(url, { 'x-forwarded-proto': 'https' });
      expect({ url, hsts: res.headers['strict-transport-security'] }).toEqual({
        url,
        hsts: 'max-age=31536000; includeSubDomains',
      });
    }
  });

  it('the public API keeps its Cache-Control and CORS, and adds nosniff', async () => {
    const res = await get('/public/v1/campaigns');
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'cache-control': 'public, max-age=60',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBeUndefined();
  });

  it('a duplicated Authorization header is refused as unauthorized, not first-wins', async () => {
    const port = (t.app.getHttpServer().address() as AddressInfo).port;
    const once = await rawRequest(port, ['GET /v1/organisation HTTP/1.1', `Authorization: Bearer ${key}`]);
    expect(once.status).toBe(200);
    const twice = await rawRequest(port, [
      'GET /v1/organisation HTTP/1.1',
      `Authorization: Bearer ${key}`,
      'Authorization: Bearer sk_test_somebody_else',
    ]);
    expect(twice.status).toBe(401);
    expect(JSON.parse(twice.body)).toMatchObject({
      code: 'unauthorized',
      detail: 'The Authorization header was sent more than once; send one.',
    });
  });
});
