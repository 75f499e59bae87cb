import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { call, createOrg, TestOrg } from './platform-fixtures';

/** An app without worker, one Pro organisation with a test key, its test site and a host: the hardening specs' setup. */
export interface VisitorOrg {
  t: TestApp;
  pg: Client;
  org: TestOrg;
  key: string;
  site: string;
  host: string;
  /** POST /v1/visits at the site with the host (type meeting unless given). */
  visit(body: Record<string, unknown>, key?: string, idempotencyKey?: string): ReturnType<typeof call>;
  close(): Promise<void>;
}

export async function bootVisitorOrg(): Promise<VisitorOrg> {
  const t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const org = await createOrg(t.app, 'pro');
  const key = await org.key();
  const site = org.sites.find((s) => !s.livemode)!.id;
  const host = (
    await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
  ).json().id as string;
  return {
    t,
    pg,
    org,
    key,
    site,
    host,
    visit: (body, k = key, idempotencyKey) =>
      call(t.app, 'POST', '/v1/visits', {
        key: k,
        idempotencyKey,
        body: { site_id: site, host_id: host, type: 'meeting', ...body },
      }),
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
