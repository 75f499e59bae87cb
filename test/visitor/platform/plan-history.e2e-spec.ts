import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { call, createOrg } from '../../support/platform-fixtures';

/**
 * Plan history in live mode: visits older than the plan's window are hidden (omitted from lists, plan_required
 * by id, also for changes), except visits in expected, awaiting_approval or checked_in. Test mode hides nothing.
 */
describe('plan history', () => {
  let t: TestApp;
  let pg: Client;
  let phone = 5000;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  /** A Pro organisation with a 30-day window, a plain site and a site needing host approval, in one mode. */
  async function setup(mode: 'live' | 'test') {
    const org = await createOrg(t.app, 'pro', 2);
    await pg.query(`UPDATE visitor.organisation SET history_days = 30 WHERE id = $1`, [org.id]);
    const key = await org.key({ mode });
    const [site, approvalSite] = org.sites.filter((s) => s.livemode === (mode === 'live')).map((s) => s.id);
    await pg.query(`UPDATE visitor.site SET requires_host_approval = true WHERE id = $1`, [approvalSite]);
    const host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
    ).json().id as string;
    const visit = async (siteId: string, ...actions: string[]) => {
      const res = await call(t.app, 'POST', '/v1/visits', {
        key,
        body: {
          site_id: siteId,
          host_id: host,
          type: 'meeting',
          visitor: { name: 'Kofi Boateng', phone: `+23324${String(4000000 + phone++).padStart(7, '0')}` },
        },
      });
      expect(res.statusCode).toBe(201);
      const id = res.json().id as string;
      for (const a of actions)
        expect((await call(t.app, 'POST', `/v1/visits/${id}/${a}`, { key, body: {} })).statusCode).toBe(200);
      return id;
    };
    return { org, key, site, approvalSite, visit };
  }

  const backdate = (ids: string[], interval: string) =>
    pg.query(`UPDATE visitor.visit SET created_at = now() - $2::interval WHERE id = ANY($1)`, [
      ids,
      interval,
    ]);
  const listed = async (key: string) =>
    ((await call(t.app, 'GET', '/v1/visits?limit=100', { key })).json().data as { id: string }[]).map(
      (v) => v.id,
    );

  it('live: old expected, awaiting_approval and checked_in visits stay listed and readable; the others are hidden', async () => {
    const { key, site, approvalSite, visit } = await setup('live');
    const expected = await visit(site);
    const awaiting = await visit(approvalSite, 'check-in');
    const checkedIn = await visit(site, 'check-in');
    const checkedOut = await visit(site, 'check-in', 'check-out');
    const cancelled = await visit(site, 'cancel');
    const recentCancelled = await visit(site, 'cancel');
    await backdate([expected, awaiting, checkedIn, checkedOut, cancelled], '40 days');

    const statuses = Object.fromEntries(
      await Promise.all(
        [expected, awaiting, checkedIn].map(async (id) => {
          const res = await call(t.app, 'GET', `/v1/visits/${id}`, { key });
          expect(res.statusCode).toBe(200);
          return [id, res.json().status];
        }),
      ),
    );
    expect(statuses).toEqual({
      [expected]: 'expected',
      [awaiting]: 'awaiting_approval',
      [checkedIn]: 'checked_in',
    });
    expect((await listed(key)).sort()).toEqual([expected, awaiting, checkedIn, recentCancelled].sort());
    for (const id of [checkedOut, cancelled]) {
      const res = await call(t.app, 'GET', `/v1/visits/${id}`, { key });
      expect([res.statusCode, res.json().code]).toEqual([403, 'plan_required']);
    }
    // Acting on an old active visit works: it is never hidden.
    expect(
      (await call(t.app, 'POST', `/v1/visits/${awaiting}/approve`, { key, body: {} })).json().status,
    ).toBe('checked_in');
    expect(
      (await call(t.app, 'POST', `/v1/visits/${checkedIn}/check-out`, { key, body: {} })).statusCode,
    ).toBe(200);
  });

  it('live: PATCH or cancel on a hidden visit is plan_required and changes nothing', async () => {
    const { key, site, visit } = await setup('live');
    const hidden = await visit(site, 'check-in', 'check-out');
    const hiddenNoShow = await visit(site);
    await pg.query(`UPDATE visitor.visit SET status = 'no_show' WHERE id = $1`, [hiddenNoShow]);
    await backdate([hidden, hiddenNoShow], '40 days');
    const before = (
      await pg.query(`SELECT * FROM visitor.visit WHERE id = ANY($1) ORDER BY id`, [[hidden, hiddenNoShow]])
    ).rows;

    for (const id of [hidden, hiddenNoShow]) {
      const patch = await call(t.app, 'PATCH', `/v1/visits/${id}`, { key, body: { purpose: 'changed' } });
      expect([patch.statusCode, patch.json().code]).toEqual([403, 'plan_required']);
      const cancel = await call(t.app, 'POST', `/v1/visits/${id}/cancel`, { key, body: { reason: 'x' } });
      expect([cancel.statusCode, cancel.json().code]).toEqual([403, 'plan_required']);
    }
    const after = (
      await pg.query(`SELECT * FROM visitor.visit WHERE id = ANY($1) ORDER BY id`, [[hidden, hiddenNoShow]])
    ).rows;
    expect(after).toEqual(before);
  });

  it('test mode hides nothing: a finished test-mode visit older than any live window is listed and readable', async () => {
    const { key, site, visit } = await setup('test');
    const old = await visit(site, 'check-in', 'check-out');
    // Older than the organisation's 30 days and than Pro's five years.
    await backdate([old], '6 years');
    expect(await listed(key)).toContain(old);
    const res = await call(t.app, 'GET', `/v1/visits/${old}`, { key });
    expect([res.statusCode, res.json().status]).toEqual([200, 'checked_out']);
    // The same age in live mode would be hidden: the window applies, the mode decides.
    const live = await setup('live');
    const liveOld = await live.visit(live.site, 'check-in', 'check-out');
    await backdate([liveOld], '6 years');
    expect((await call(t.app, 'GET', `/v1/visits/${liveOld}`, { key: live.key })).json().code).toBe(
      'plan_required',
    );
  });
});
