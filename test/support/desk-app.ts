import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { Contract } from './openapi-contract';
import { call, createOrg, TestOrg } from './platform-fixtures';

/** Bytes of a 1×1 PNG (a real image: its signature is what the upload check reads). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
/** The first bytes of a JPEG file (enough for its signature), padded. */
export const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(200, 1),
]);

let phoneSeq = 0;
/** A valid Ghanaian mobile number, new each call (offset per test file by `base`). */
export const phoneFrom = (base: number) => () => `+23324${String(base + phoneSeq++).padStart(7, '0')}`;

/** One app on its own database, and a fresh organisation with a test key, two test sites and a host. */
export interface Desk {
  t: TestApp;
  pg: Client;
  contract: Contract;
  org: TestOrg;
  key: string;
  site: string;
  site2: string;
  host: string;
}

export async function bootDesk(
  env: Record<string, string> = {},
): Promise<Omit<Desk, 'org' | 'key' | 'site' | 'site2' | 'host'>> {
  const t = await bootTestApp({
    env: { WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', WEBHOOK_SWEEP_MS: '200', ...env },
  });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  return { t, pg, contract: await Contract.fetch(t.app, '/v1/openapi.json') };
}

/** A fresh organisation (the test-mode allowance is per organisation) with a key, sites and a host. */
export async function freshOrg(
  d: Pick<Desk, 't'>,
): Promise<Pick<Desk, 'org' | 'key' | 'site' | 'site2' | 'host'>> {
  const org = await createOrg(d.t.app, 'pro', 2);
  const key = await org.key();
  const [site, site2] = org.sites.filter((s) => !s.livemode).map((s) => s.id);
  const host = (
    await call(d.t.app, 'POST', '/v1/people', {
      key,
      body: {
        name: 'Ama Host',
        email: `ama.${org.id.slice(4, 12).toLowerCase()}@host.test`,
        phone: '+233201234567',
      },
    })
  ).json().id as string;
  return { org, key, site, site2, host };
}

/**
 * The jest hooks of a desk test file: one app for the file (`env` on top of the defaults), a fresh organisation
 * before each test, everything closed after. Returns the object the hooks fill in.
 */
export function useDesk(env: Record<string, string> = {}, cleanup?: () => void): Desk {
  const d = {} as Desk;
  beforeAll(async () => {
    Object.assign(d, await bootDesk(env));
  });
  beforeEach(async () => {
    Object.assign(d, await freshOrg(d));
  });
  afterAll(async () => {
    await d.pg?.end();
    await d.t?.close();
    cleanup?.();
  });
  return d;
}

/** PUTs `bytes` to a link the API returned, through the app (local driver links point at this service). */
export function putToLink(
  d: Pick<Desk, 't'>,
  link: { url: string; headers: Record<string, string> },
  bytes: Buffer,
  contentType = link.headers['Content-Type'],
) {
  const u = new URL(link.url);
  return d.t.app.inject({
    method: 'PUT',
    url: `${u.pathname}${u.search}`,
    headers: { 'content-type': contentType },
    payload: bytes,
  });
}

export function getLink(d: Pick<Desk, 't'>, url: string, method: 'GET' | 'PUT' = 'GET') {
  const u = new URL(url);
  return d.t.app.inject({
    method,
    url: `${u.pathname}${u.search}`,
    ...(method === 'PUT' ? { payload: PNG, headers: { 'content-type': 'image/png' } } : {}),
  });
}
