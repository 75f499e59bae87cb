import type { INestApplicationContext } from '@nestjs/common';
import { randomBase62 } from '../common/ids';
import { AccountsRepository } from './accounts/accounts.repository';
import type { DemoAccess, Seeder } from '../seed/seeder';
import { PeopleService } from './people/people.service';
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
    if (await s.orgs.findBySlugOrId(DEMO_SLUG)) return { organisations: 0 };
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
    const hosts: Record<string, string> = {};
    for (const livemode of [true, false]) {
      const host = await app.get(PeopleService).create(
        { organisationId: organisation.id, livemode },
        {
          name: 'Ama Mensah',
          email: 'ama@demo.gatehouse.test',
          site_ids: sites.filter((x) => x.livemode === livemode).map((x) => x.id),
          can_host: true,
        },
      );
      hosts[String(livemode)] = host.id;
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
  const org = await s.orgs.findBySlugOrId(DEMO_SLUG);
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
  // the oldest test-mode site with a gate and a host there, its first gate and its first host
  const tenant = { organisationId: org.id, livemode: false };
  const sites = await s.orgs.firstSites(tenant, 20);
  const { data: hosts } = await app.get(PeopleService).list(tenant, { canHost: true, limit: 100 });
  const site = sites.find((x) => x.gates.length && hosts.some((h) => h.site_ids.includes(x.id)));
  return {
    organisation_id: org.id,
    email: DEMO_OWNER_EMAIL,
    password,
    key: key.key,
    site_id: site?.id ?? null,
    gate_id: site?.gates[0].id ?? null,
    host_id: (site && hosts.find((h) => h.site_ids.includes(site.id))?.id) ?? null,
  };
}
