import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import { bootTestApp, TestApp } from '../harness';
import { call, createOrg } from '../support/platform-fixtures';
import { signatureHeader } from '../../src/visitor/webhooks/delivery/signature';

const GUIDES = join(__dirname, '../../src/docs/guides');
/** The first fenced block of `language` in a guide. */
const codeOf = (file: string, language: string) =>
  new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(readFileSync(join(GUIDES, file), 'utf8'))![1];

/** /docs: Scalar references of both documents, served offline, with the guides; the guides' code runs. */
describe('/docs', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await bootTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => t?.close());
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('every page answers 200 and loads nothing from another origin', async () => {
    for (const url of ['/docs', '/docs/visitor/', '/docs/public/', '/docs/errors']) {
      const res = await get(url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const external = [...res.body.matchAll(/(?:src|href)="(https?:)?\/\/[^"]*"/g)].map((m) => m[0]);
      expect({ url, external }).toEqual({ url, external: [] });
    }
    expect((await get('/docs/visitor')).headers.location).toBe('/docs/visitor/');
    const script = await get('/docs/visitor/js/scalar.js');
    expect(script.statusCode).toBe(200);
    expect(script.body.length).toBeGreaterThan(100_000); // Scalar's bundle, from node_modules
  });

  it('the reference pages allow only their own script and start-up script (CSP)', async () => {
    const res = await get('/docs/visitor/');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self' 'sha256-[^']+'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('the references show every operation, the guides, and the scope and plan of every /v1 operation', async () => {
    for (const [which, contract] of [
      ['visitor', '/v1/openapi.json'],
      ['public', '/public/v1/openapi.json'],
    ] as const) {
      const served = (await get(contract)).json();
      const shown = (await get(`/docs/${which}/openapi.json`)).json();
      const ops = (doc: { paths: Record<string, Record<string, unknown>> }) =>
        Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
      expect(ops(shown)).toEqual(ops(served));
      expect(shown.info.description).toContain(
        which === 'visitor' ? '## Verifying webhook signatures' : '## Keys and limits',
      );
    }
    const visitor = (await get('/docs/visitor/openapi.json')).json();
    for (const [path, item] of Object.entries(
      visitor.paths as Record<string, Record<string, { description?: string }>>,
    ))
      for (const [method, op] of Object.entries(item))
        if (path !== '/openapi.json')
          expect({
            op: `${method} ${path}`,
            access: /^\*\*Scope:\*\* `[^`]+` · \*\*Plan:\*\* live mode on /.test(op.description ?? ''),
          }).toEqual({
            op: `${method} ${path}`,
            access: true,
          });
    expect(visitor.paths['/visits'].post.description).toContain('live mode on Pro, Enterprise');
  });

  it('the webhook guide verifies a real Gatehouse signature and refuses a forged one', () => {
    const verifyWebhook = new Function('require', `${codeOf('6-webhooks.md', 'js')}\nreturn verifyWebhook;`)(
      require,
    );
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = JSON.stringify({ id: 'evt_1', type: 'visit.created', data: { object: { id: 'visit_1' } } });
    const now = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(now),
      'webhook-signature': signatureHeader([secret], 'evt_1', now, body),
    };
    expect(verifyWebhook(body, headers, secret)).toMatchObject({ type: 'visit.created' });
    expect(() => verifyWebhook(body.replace('visit_1', 'visit_2'), headers, secret)).toThrow();
  });

  it('the pagination guide walks every page of a list', async () => {
    const org = await createOrg(t.app);
    const KEY = await org.key();
    const site = org.sites.find((x) => !x.livemode)!.id;
    const host = (
      await call(t.app, 'POST', '/v1/people', { key: KEY, body: { name: 'H', email: 'h@x.test' } })
    ).json().id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await call(t.app, 'POST', '/v1/visits', {
            key: KEY,
            body: {
              site_id: site,
              host_id: host,
              type: 'meeting',
              visitor: { name: 'V', phone: `+23324400010${i}` },
            },
          })
        ).json().id,
      );
    const logged: string[] = [];
    const walk = new Function(
      'BASE',
      'KEY',
      'console',
      `return (async () => {\n${codeOf('3-pagination.md', 'js')}\n})();`,
    );
    await walk(base, KEY, { log: (...a: unknown[]) => logged.push(a.join(' ')) });
    expect(logged).toEqual(ids.map((id) => `${id} expected`));
  });
});
