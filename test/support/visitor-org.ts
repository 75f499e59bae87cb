import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { call, createOrg, TestOrg } from './platform-fixtures';

/** One Pro organisation with a test key, its test site and a host (an app may hold many). */
export interface OrgWithHost {
  org: TestOrg;
  key: string;
  site: string;
  host: string;
  /** POST /v1/visits at the site with the host (type meeting unless given). */
  visit(body: Record<string, unknown>, key?: string, idempotencyKey?: string): ReturnType<typeof call>;
}

/** An app without worker and one organisation set up by `orgWithHost`: the hardening specs' setup. */
export interface VisitorOrg extends OrgWithHost {
  t: TestApp;
  pg: Client;
  close(): Promise<void>;
}

export async function orgWithHost(app: TestApp['app']): Promise<OrgWithHost> {
  const org = await createOrg(app, 'pro');
  const key = await org.key();
  const site = org.sites.find((s) => !s.livemode)!.id;
  const host = (
    await call(app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
  ).json().id as string;
  return {
    org,
    key,
    site,
    host,
    visit: (body, k = key, idempotencyKey) =>
      call(app, 'POST', '/v1/visits', {
        key: k,
        idempotencyKey,
        body: { site_id: site, host_id: host, type: 'meeting', ...body },
      }),
  };
}

export async function bootVisitorOrg(): Promise<VisitorOrg> {
  const t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  return {
    t,
    pg,
    ...(await orgWithHost(t.app)),
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
