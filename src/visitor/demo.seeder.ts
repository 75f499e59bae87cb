import type { DataSource } from 'typeorm';
import { newId, randomBase62 } from '../common/ids';
import { AccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import type { Seeder } from '../seed/seeder';
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
  async run(ds: DataSource, opts): Promise<Record<string, number>> {
    const s = platformServices(ds);
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
    await new AccountsService(new AccountsRepository(ds), s.audit, s.tx, s.clock).create(
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
    opts.log(`demo organisation ${organisation.id} (Pro)`);
    opts.log(`  console sign-in: ${DEMO_OWNER_EMAIL} / ${password}   (POST /console/session)`);
    opts.log(`  test secret key: ${key.key}`);
    opts.log(`  try: curl -H "Authorization: Bearer ${key.key}" http://localhost:<PORT>/v1/organisation`);
    opts.log(`  test-mode site ${testSite.id} (gate ${testSite.gates[0].id}), host ${hosts.false}`);
    return { organisations: 1, sites: 2, console_accounts: 1, api_keys: 1, people: 2 };
  },
};
