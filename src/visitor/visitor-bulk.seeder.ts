import type { Seeder } from '../seed/seeder';
import { EventsService } from './events/events.service';
import { OrganisationsService } from './organisations/organisations.service';
import { PeopleService } from './people/people.service';
import { VisitsService } from './visits/visits.service';

/** Per scale unit: one organisation (Growth/Pro alternating, a site and its test-mode copy) and, in test mode: */
export const VISITOR_SEED = { organisations: 1, people: 10, visitors: 50, visits: 100 };

/**
 * The visitor area at scale (`gatehouse seed --scale N`), for demos and the visitor benchmarks: N organisations
 * (`bulk-<i>`, made by the real OrganisationsService: sites, gates and the sandbox copy), and per organisation in
 * test mode 10 people, 50 visitor records, 100 visits over the last 20 days in every common status (expected,
 * checked in, checked out, cancelled) and a `visit.created` event for each. Ids derive from the organisation and
 * the row number, so seeding again adds only what a larger scale adds. Each table is written by its owner (people,
 * visits, events: their `seed…` methods), one `INSERT … SELECT` per table over all new organisations.
 */
export const visitorBulkSeeder: Seeder = {
  name: 'visitor',
  order: 30,
  async run(app, opts) {
    const scale = Math.max(1, Math.floor(opts.scale));
    const orgs = app.get(OrganisationsService);
    const operator = { type: 'operator' as const, id: 'seed' };
    const progress = opts.progress?.('visitor organisations', scale);
    // each new organisation's test-mode site
    const created: { organisationId: string; siteId: string }[] = [];
    for (let i = 1; i <= scale; i++) {
      const slug = `bulk-${i}`;
      if (!(await orgs.findBySlugOrId(slug))) {
        const { organisation, sites } = await orgs.create(
          {
            name: `Bulk Organisation ${i}`,
            slug,
            plan: i % 2 ? 'pro' : 'growth',
            country: 'GH',
            time_zone: 'Africa/Accra',
            sites: [{ name: `Office ${i}`, time_zone: 'Africa/Accra', gates: ['Main gate'] }],
          },
          operator,
        );
        created.push({ organisationId: organisation.id, siteId: sites.find((s) => !s.livemode)!.id });
      }
      progress?.tick();
    }
    progress?.done();
    if (created.length === 0) return { organisations: 0, people: 0, visitors: 0, visits: 0, events: 0 };

    const people = await app.get(PeopleService).seedHosts(created, VISITOR_SEED.people);
    const seeded = await app.get(VisitsService).seedBulk(created, people.ids, VISITOR_SEED);
    const events = await app.get(EventsService).seedBulk(
      seeded.visits.map((v) => ({
        key: v.id,
        organisationId: v.organisation_id,
        livemode: false,
        type: 'visit.created',
        createdAt: v.created_at,
        object: v.object,
      })),
    );
    return {
      organisations: created.length,
      people: people.inserted,
      visitors: seeded.visitors,
      visits: seeded.visits.length,
      events,
    };
  },
};
