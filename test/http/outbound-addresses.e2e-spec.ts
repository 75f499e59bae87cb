import { bootTestApp, TestApp } from '../harness';
import { call, createOrg } from '../support/platform-fixtures';

/** Webhook destinations through the API, production rules (no WEBHOOK_ALLOW_LOCAL_TARGETS). */
describe('webhook destinations: globally routable unicast only', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    key = await (await createOrg(t.app)).key();
  });
  afterAll(() => t?.close());

  it.each([
    ['https://[::127.0.0.1]/', '::7f00:1'],
    ['https://[::7f00:1]/', '::7f00:1'],
    ['https://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1'],
    ['https://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['https://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
    ['https://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ])('POST /v1/webhook-endpoints refuses %s at body.url', async (url, address) => {
    const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key,
      body: { url, enabled_events: ['*'] },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ location: 'body.url', message: expect.stringContaining(`non-public address (${address})`) }],
    });
  });

  it('accepts a global IPv6 address', async () => {
    const res = await call(t.app, 'POST', '/v1/webhook-endpoints', {
      key,
      body: { url: 'https://[2606:4700:4700::1111]/hook', enabled_events: ['*'] },
    });
    expect(res.statusCode).toBe(201);
  });
});
