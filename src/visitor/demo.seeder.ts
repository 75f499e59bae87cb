import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId, randomBase62 } from '../common/ids';
import { AccountsRepository } from './accounts/accounts.repository';
import type { DemoAccess, Seeder } from '../seed/seeder';
import { platformServices } from './visitor.command';
import { SCOPES } from './platform/scopes';

export const DEMO_SLUG = 'demo-front-door';
export const DEMO_OWNER_EMAIL = 'owner@demo.gatehouse.test';

/**
 * The visitor API demo: an organisation on Pro with a site and a host (in both modes), a console Owner and a
 * test-mode secret key with every scope. The password and key are random and printed once (they are stored hashed).
 */
export const visitorDemoSeeder: Seeder = {
  name: 'visitor-demo',
  order: 10,
  async run(app, opts): Promise<Record<string, number>> {
    const s = platformServices(app);
    const ds = app.get(DataSource);
    if (await s.orgRepo.findOrganisationBySlugOrId(DEMO_SLUG)) return { organisations: 0 };
    const operator = { type: 'operator' as const, id: 'seed' };
    const { organisation, sites } = await s.orgs.create(
      {
        name: 'Demo Front Door',
        slug: DEMO_SLUG,
        plan: 'pro',
        country: 'GH',
        time_zone: 'Africa/Accra',
        sites: [{ name: 'Head office', time_zone: 'Africa/Accra', gates: ['Main gate', 'Loading bay'] }],
      },
      operator,
    );
    const password = randomBase62(20);
    await s.accounts.create(
      organisation.id,
      { email: DEMO_OWNER_EMAIL, name: 'Demo Owner', role: 'owner', password },
      operator,
    );
    const key = await s.keys.create(
      organisation.id,
      { name: 'Demo test key', kind: 'secret', mode: 'test', scopes: [...SCOPES] },
      operator,
    );
    // A host in both modes, so a visit can be created at once.
    const now = new Date();
    const hosts: Record<string, string> = {};
    for (const livemode of [true, false]) {
      hosts[String(livemode)] = newId('person');
      await ds.query(
        `INSERT INTO visitor.person (id, organisation_id, livemode, name, email, site_ids, can_host, active, created_at, updated_at)
         VALUES ($1, $2, $3, 'Ama Mensah', 'ama@demo.gatehouse.test', $4, true, true, $5, $5)`,
        [
          hosts[String(livemode)],
          organisation.id,
          livemode,
          sites.filter((x) => x.livemode === livemode).map((x) => x.id),
          now,
        ],
      );
    }
    const testSite = sites.find((x) => !x.livemode)!;
    const access: DemoAccess = {
      organisation_id: organisation.id,
      email: DEMO_OWNER_EMAIL,
      password,
      key: key.key,
      site_id: testSite.id,
      gate_id: testSite.gates[0].id,
      host_id: hosts.false,
    };
    if (opts.onDemoAccess) opts.onDemoAccess(access);
    else
      opts.log(
        `demo organisation ${organisation.id}: sign in as ${DEMO_OWNER_EMAIL} / ${password}, key ${key.key}`,
      );
    return { organisations: 1, sites: 2, console_accounts: 1, api_keys: 1, people: 2 };
  },
};

/**
 * A working demo sign-in and key again (`gatehouse demo`): secrets are stored only as hashes, so the first start's
 * cannot be shown twice; this sets a new random password on the demo Owner and issues a new test-mode key (earlier
 * keys keep working). Null when the demo organisation was never seeded.
 */
export async function reissueDemoAccess(
  app: Pick<INestApplicationContext, 'get'>,
): Promise<DemoAccess | null> {
  const s = platformServices(app);
  const org = await s.orgRepo.findOrganisationBySlugOrId(DEMO_SLUG);
  if (!org) return null;
  const owner = await app.get(AccountsRepository).findByEmail(DEMO_OWNER_EMAIL);
  if (!owner) return null;
  const operator = { type: 'operator' as const, id: 'demo' };
  const password = randomBase62(20);
  await s.accounts.resetPassword(owner, password, operator);
  const key = await s.keys.create(
    org.id,
    { name: 'Demo test key', kind: 'secret', mode: 'test', scopes: [...SCOPES] },
    operator,
  );
  const rows: { site_id: string; gate_id: string; host_id: string }[] = await app.get(DataSource).query(
    `SELECT s.id AS site_id, g.id AS gate_id, p.id AS host_id
       FROM visitor.site s JOIN visitor.gate g ON g.site_id = s.id
       JOIN visitor.person p ON p.organisation_id = s.organisation_id AND p.livemode = s.livemode AND s.id = ANY(p.site_ids)
      WHERE s.organisation_id = $1 AND NOT s.livemode
      ORDER BY s.created_at, g.id, p.created_at LIMIT 1`,
    [org.id],
  );
  return {
    organisation_id: org.id,
    email: DEMO_OWNER_EMAIL,
    password,
    key: key.key,
    site_id: rows[0]?.site_id ?? null,
    gate_id: rows[0]?.gate_id ?? null,
    host_id: rows[0]?.host_id ?? null,
  };
}
