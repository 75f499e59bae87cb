import { bootVisitorOrg, VisitorOrg } from '../../support/visitor-org';
import { call, createOrg } from '../../support/platform-fixtures';
import { postBooking, saveBookingType } from '../../support/booking-fixtures';
import { phoneFrom } from '../../support/desk-app';
import { newId } from '../../../src/common/ids';

/**
 * Visit and booking create reuse what their reference checks read, per process, under the organisation's reference
 * version (ReferenceCache). Every change to what they check must be seen from the next request on: through this
 * process's API, and written by anything else (another API process, the console, a migration), here a plain SQL
 * client. Each case first answers one create with the reference as it was, so the cache holds it.
 */
describe('reference checks after a change', () => {
  let v: VisitorOrg;
  const phone = phoneFrom(7_300_000);
  const tenant = () => ({ organisationId: v.org.id, livemode: false });
  const locations = (res: { json(): { errors?: { location: string }[] } }) =>
    (res.json().errors ?? []).map((e) => e.location);

  beforeAll(async () => {
    v = await bootVisitorOrg();
  });
  afterAll(async () => {
    await v?.close();
  });

  it('a host deactivated through the API, then reactivated: refused at once, then accepted at once', async () => {
    expect((await v.visit({ visitor: { name: 'Kofi', phone: phone() } })).statusCode).toBe(201);
    const off = await call(v.t.app, 'POST', `/v1/people/${v.host}/deactivate`, { key: v.key });
    expect(off.statusCode).toBe(200);
    const refused = await v.visit({ visitor: { name: 'Kofi', phone: phone() } });
    expect(refused.statusCode).toBe(422);
    expect(locations(refused)).toEqual(['body.host_id']);
    expect((await call(v.t.app, 'POST', `/v1/people/${v.host}/reactivate`, { key: v.key })).statusCode).toBe(
      200,
    );
    expect((await v.visit({ visitor: { name: 'Kofi', phone: phone() } })).statusCode).toBe(201);
  });

  it('changes written outside this process (SQL): a host who may no longer host, a gate added then moved, a type turned off', async () => {
    expect((await v.visit({ visitor: { name: 'Esi', phone: phone() } })).statusCode).toBe(201);

    await v.pg.query(`UPDATE visitor.person SET can_host = false WHERE id = $1`, [v.host]);
    const host = await v.visit({ visitor: { name: 'Esi', phone: phone() } });
    expect(host.statusCode).toBe(422);
    expect(locations(host)).toEqual(['body.host_id']);
    await v.pg.query(`UPDATE visitor.person SET can_host = true WHERE id = $1`, [v.host]);
    expect((await v.visit({ visitor: { name: 'Esi', phone: phone() } })).statusCode).toBe(201);

    // The site's gates are read with the site: a gate added is usable at once, and one moved away refused at once.
    const gate = newId('gate');
    await v.pg.query(
      `INSERT INTO visitor.gate (id, site_id, organisation_id, livemode, name, position, created_at)
       VALUES ($1, $2, $3, false, 'Side', 9, now())`,
      [gate, v.site, v.org.id],
    );
    expect((await v.visit({ gate_id: gate, visitor: { name: 'Esi', phone: phone() } })).statusCode).toBe(201);
    const elsewhere = v.org.sites.find((s) => s.livemode)!.id;
    await v.pg.query(`UPDATE visitor.gate SET site_id = $2 WHERE id = $1`, [gate, elsewhere]);
    const moved = await v.visit({ gate_id: gate, visitor: { name: 'Esi', phone: phone() } });
    expect(moved.statusCode).toBe(422);
    expect(locations(moved)).toEqual(['body.gate_id']);

    await v.pg.query(
      `INSERT INTO visitor.visit_type (organisation_id, livemode, key, name, enabled, created_at, updated_at)
       VALUES ($1, false, 'meeting', 'Meeting', false, now(), now())
       ON CONFLICT (organisation_id, livemode, key) DO UPDATE SET enabled = false`,
      [v.org.id],
    );
    const type = await v.visit({ visitor: { name: 'Esi', phone: phone() } });
    expect(type.statusCode).toBe(422);
    expect(locations(type)).toEqual(['body.type']);
    await v.pg.query(
      `UPDATE visitor.visit_type SET enabled = true WHERE organisation_id = $1 AND livemode = false AND key = 'meeting'`,
      [v.org.id],
    );
    expect((await v.visit({ visitor: { name: 'Esi', phone: phone() } })).statusCode).toBe(201);
  });

  it('a booking type turned off outside this process: the next booking is refused', async () => {
    const tour = await saveBookingType(v.t.app, tenant(), { site: v.site, host: v.host }, { capacity: 100 });
    const d = new Date();
    const start = new Date(
      Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1, 10),
    ).toISOString();
    expect((await postBooking(v.t.app, v.key, phone(), tour.id, start)).statusCode).toBe(201);
    await v.pg.query(`UPDATE visitor.booking_type SET active = false WHERE id = $1`, [tour.id]);
    const refused = await postBooking(v.t.app, v.key, phone(), tour.id, start);
    expect(refused.statusCode).toBe(422);
    expect(locations(refused)).toEqual(['body.booking_type_id']);
  });

  it('a change elsewhere in the organisation moves its version; another organisation keeps its own', async () => {
    const version = async (org: string) =>
      (
        await v.pg.query<{ v: string }>(
          `SELECT reference_version::text AS v FROM visitor.organisation WHERE id = $1`,
          [org],
        )
      ).rows[0].v;
    const other = (await createOrg(v.t.app)).id;
    const before = { mine: await version(v.org.id), other: await version(other) };
    // A person's contact details are not what a host check reads: no change of version.
    await v.pg.query(`UPDATE visitor.person SET name = 'Ama H.' WHERE id = $1`, [v.host]);
    expect(await version(v.org.id)).toBe(before.mine);
    await v.pg.query(`UPDATE visitor.site SET name = 'Front' WHERE id = $1`, [v.site]);
    expect(BigInt(await version(v.org.id))).toBeGreaterThan(BigInt(before.mine));
    // A statement that changes several rows moves it too.
    const once = await version(v.org.id);
    await v.pg.query(`UPDATE visitor.gate SET name = name || '.' WHERE organisation_id = $1`, [v.org.id]);
    const after = await version(v.org.id);
    expect(BigInt(after)).toBeGreaterThan(BigInt(once));
    expect(await version(other)).toBe(before.other);
  });
});
