import { DataSource } from 'typeorm';
import type { Seeder } from '../seed/seeder';
import { platformServices } from './visitor.command';

/** Per scale unit: one organisation (Growth/Pro alternating, a site and its test-mode copy) and, in test mode: */
export const VISITOR_SEED = { organisations: 1, people: 10, visitors: 50, visits: 100 };

/** A deterministic id: `<prefix>_` + 22 hex characters of md5 over the given SQL expression. */
const sqlId = (prefix: string, key: string) => `'${prefix}_' || left(md5(${key}), 22)`;

/**
 * The visitor area at scale (`gatehouse seed --scale N`), for demos and the visitor benchmarks: N organisations
 * (`bulk-<i>`, made by the real OrganisationsService: sites, gates and the sandbox copy), and per organisation in
 * test mode 10 people, 50 visitor records, 100 visits over the last 20 days in every common status (expected,
 * checked in, checked out, cancelled) and a `visit.created` event for each. Ids derive from the organisation and
 * the row number, so seeding again adds only what a larger scale adds. People, visits and events go in with one
 * `INSERT … SELECT` each over all new organisations.
 */
export const visitorBulkSeeder: Seeder = {
  name: 'visitor',
  order: 30,
  async run(app, opts) {
    const scale = Math.max(1, Math.floor(opts.scale));
    const s = platformServices(app);
    const ds = app.get(DataSource);
    const operator = { type: 'operator' as const, id: 'seed' };
    const progress = opts.progress?.('visitor organisations', scale);
    const created: string[] = [];
    for (let i = 1; i <= scale; i++) {
      const slug = `bulk-${i}`;
      if (!(await s.orgRepo.findOrganisationBySlugOrId(slug))) {
        const { organisation } = await s.orgs.create(
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
        created.push(organisation.id);
      }
      progress?.tick();
    }
    progress?.done();
    if (created.length === 0) return { organisations: 0, people: 0, visitors: 0, visits: 0, events: 0 };

    const sites = `(SELECT o.id AS org, s.id AS site FROM unnest($1::text[]) o(id)
                      JOIN visitor.site s ON s.organisation_id = o.id AND NOT s.livemode)`;
    const people: { n: number }[] = await ds.query(
      `WITH t AS ${sites}
       INSERT INTO visitor.person (id, organisation_id, livemode, name, email, site_ids, can_host, active, created_at, updated_at)
       SELECT ${sqlId('person', `t.org || ':p' || i`)}, t.org, false,
              (ARRAY['Ama','Kofi','Efua','Kwame','Abena','Yaw','Akosua','Kojo','Adwoa','Kwesi'])[i] || ' Host',
              'host' || i || '@' || lower(t.org) || '.test', ARRAY[t.site], true, true, now(), now()
         FROM t, generate_series(1, $2::int) i
       ON CONFLICT (id) DO NOTHING RETURNING 1 AS n`,
      [created, VISITOR_SEED.people],
    );
    const visitors: unknown[] = await ds.query(
      `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, email, company, last_visit_at, created_at, updated_at)
       SELECT ${sqlId('vtr', `o.id || ':v' || i`)}, o.id, false, 'Visitor ' || i,
              '+23324' || lpad((1000000 + i)::text, 7, '0'), 'visitor' || i || '@example.com',
              CASE WHEN i % 3 = 0 THEN 'Company ' || (i % 7) END, now(), now() - interval '20 days', now()
         FROM unnest($1::text[]) o(id), generate_series(1, $2::int) i
       ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [created, VISITOR_SEED.visitors],
    );
    const visits: unknown[] = await ds.query(
      `WITH t AS ${sites}
       INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id, purpose,
                                  expected_at, checked_in_at, checked_out_at, cancelled_at, pass_channels, created_at, updated_at)
       SELECT ${sqlId('visit', `t.org || ':' || i`)}, t.org, false, st, 'meeting', 'invitation', t.site,
              ${sqlId('person', `t.org || ':p' || (1 + i % ${VISITOR_SEED.people})`)},
              ${sqlId('vtr', `t.org || ':v' || (1 + i % ${VISITOR_SEED.visitors})`)}, 'Meeting ' || i,
              at, CASE WHEN st IN ('checked_in','checked_out') THEN at END,
              CASE WHEN st = 'checked_out' THEN at + interval '1 hour' END,
              CASE WHEN st = 'cancelled' THEN at - interval '1 day' END,
              ARRAY['whatsapp','sms'], at - interval '2 days', at
         FROM t, generate_series(1, $2::int) i,
              LATERAL (SELECT (ARRAY['checked_out','checked_out','checked_in','expected','cancelled'])[1 + i % 5] AS st,
                              date_trunc('minute', now()) - ((i % 20) || ' days')::interval
                                + CASE WHEN i % 5 = 3 THEN interval '21 days' ELSE interval '0' END AS at) x
       ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [created, VISITOR_SEED.visits],
    );
    // One visit.created event per new visit, its body the envelope EventsService.record writes.
    const events: unknown[] = await ds.query(
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body)
       SELECT ${sqlId('evt', `v.id`)}, v.organisation_id, false, 'visit.created', v.created_at,
              json_build_object(
                'id', ${sqlId('evt', `v.id`)}, 'type', 'visit.created',
                'created_at', to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                'organisation_id', v.organisation_id, 'livemode', false,
                'data', json_build_object('object', json_build_object(
                  'id', v.id, 'status', 'expected', 'type', v.type, 'source', v.source, 'site_id', v.site_id,
                  'gate_id', null, 'host_id', v.host_id,
                  'visitor', json_build_object('id', r.id, 'name', r.name, 'phone', r.phone, 'email', r.email,
                                               'company', r.company),
                  'purpose', v.purpose,
                  'expected_at', to_char(v.expected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'expected_until', null, 'checked_in_at', null, 'checked_out_at', null, 'cancelled_at', null,
                  'cancel_reason', null, 'decision', null, 'booking_id', null,
                  'pass', json_build_object('channels', v.pass_channels, 'last_sent_at', null),
                  'custom_fields', '{}'::json,
                  'created_at', to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                  'updated_at', to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                )))::text
         FROM visitor.visit v JOIN visitor.visitor r ON r.id = v.visitor_id
        WHERE v.organisation_id = ANY($1::text[]) AND NOT v.livemode
       ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [created],
    );
    for (const table of ['person', 'visitor', 'visit', 'event']) await ds.query(`ANALYZE visitor.${table}`);
    return {
      organisations: created.length,
      people: people.length,
      visitors: visitors.length,
      visits: visits.length,
      events: events.length,
    };
  },
};
