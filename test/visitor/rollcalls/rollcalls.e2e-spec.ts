import { call } from '../../support/platform-fixtures';
import { freshOrg, phoneFrom, useDesk } from '../../support/desk-app';

const newPhone = phoneFrom(5300000);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('roll calls over HTTP', () => {
  const d = useDesk();

  const checkedIn = async (name: string, site = d.site) => {
    const v = (
      await call(d.t.app, 'POST', '/v1/visits', {
        key: d.key,
        body: { site_id: site, host_id: d.host, type: 'meeting', visitor: { name, phone: newPhone() } },
      })
    ).json();
    expect(
      (await call(d.t.app, 'POST', `/v1/visits/${v.id}/check-in`, { key: d.key, body: {} })).json().status,
    ).toBe('checked_in');
    return v;
  };
  const start = (site = d.site) =>
    call(d.t.app, 'POST', '/v1/rollcalls', { key: d.key, body: { site_id: site } });
  const eventsOf = async (id: string) =>
    (
      await d.pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb #>> '{data,object,id}' = $1 ORDER BY created_at, id`,
        [id],
      )
    ).rows.map((r) => ({ type: r.type as string, object: JSON.parse(r.body).data.object as Json }));

  it('snapshots everyone checked in at the site; marks, progress, close, and invalid_state once closed', async () => {
    const a = await checkedIn('Akosua Present');
    const b = await checkedIn('Bright Present');
    await checkedIn('Elsewhere Person', d.site2);
    const expected = (
      await call(d.t.app, 'POST', '/v1/visits', {
        key: d.key,
        body: {
          site_id: d.site,
          host_id: d.host,
          type: 'meeting',
          visitor: { name: 'Not Arrived', phone: newPhone() },
        },
      })
    ).json();
    expect(expected.status).toBe('expected');

    const res = await start();
    expect(res.statusCode).toBe(201);
    d.contract.expectValid(res, 'POST', '/v1/rollcalls');
    const rc = res.json();
    expect(rc).toMatchObject({
      status: 'active',
      site_id: d.site,
      progress: { total: 2, unaccounted: 2, safe: 0 },
    });
    expect(rc.people.map((p: Json) => [p.subject_id, p.kind, p.name, p.visit_id, p.status]).sort()).toEqual(
      [
        [a.visitor.id, 'visitor', 'Akosua Present', a.id, 'unaccounted'],
        [b.visitor.id, 'visitor', 'Bright Present', b.id, 'unaccounted'],
      ].sort(),
    );

    const mark = (body: Json) => call(d.t.app, 'POST', `/v1/rollcalls/${rc.id}/marks`, { key: d.key, body });
    const m1 = await mark({ subject_id: a.visitor.id, status: 'safe', marked_by: d.host });
    expect(m1.statusCode).toBe(200);
    d.contract.expectValid(m1, 'POST', '/v1/rollcalls/{rollcall_id}/marks');
    expect(m1.json().progress).toEqual({ total: 2, unaccounted: 1, safe: 1, missing: 0, needs_help: 0 });
    const marked = m1.json().people.find((p: Json) => p.subject_id === a.visitor.id);
    expect(marked).toMatchObject({ status: 'safe', marked_by: d.host });
    expect(Date.parse(marked.marked_at)).not.toBeNaN();
    const m2 = await mark({ subject_id: b.visitor.id, status: 'needs_help', note: 'East stairs' });
    expect(m2.json().progress).toMatchObject({ unaccounted: 0, needs_help: 1 });
    const m3 = await mark({ subject_id: b.visitor.id, status: 'missing' });
    expect(m3.json().progress).toMatchObject({ missing: 1, needs_help: 0 });
    const stranger = await mark({ subject_id: 'visitor_notOnIt', status: 'safe' });
    expect(stranger.statusCode).toBe(422);
    expect(stranger.json().errors[0].location).toBe('body.subject_id');

    const closed = await call(d.t.app, 'POST', `/v1/rollcalls/${rc.id}/close`, { key: d.key, body: {} });
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'closed' });
    expect(closed.json().closed_at).not.toBeNull();
    for (const [path, body] of [
      ['close', {}],
      ['marks', { subject_id: a.visitor.id, status: 'missing' }],
    ] as const) {
      const again = await call(d.t.app, 'POST', `/v1/rollcalls/${rc.id}/${path}`, { key: d.key, body });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('invalid_state');
    }
    const got = await call(d.t.app, 'GET', `/v1/rollcalls/${rc.id}`, { key: d.key });
    d.contract.expectValid(got, 'GET', '/v1/rollcalls/{rollcall_id}');
    expect(got.json()).toEqual(closed.json());

    const events = await eventsOf(rc.id);
    expect(events.map((e) => e.type)).toEqual([
      'rollcall.started',
      'rollcall.person_marked',
      'rollcall.person_marked',
      'rollcall.person_marked',
      'rollcall.closed',
    ]);
    expect(events[1].object.marked).toMatchObject({ subject_id: a.visitor.id, status: 'safe' });
    // events carry progress, never names
    for (const e of events) expect(JSON.stringify(e.object)).not.toMatch(/Akosua|Bright/);

    // a new roll call can start once the last one is closed
    expect((await start()).statusCode).toBe(201);
  });

  it('one active roll call per site: a second is conflict, also when two start at once', async () => {
    const first = await start();
    expect(first.statusCode).toBe(201);
    const second = await start();
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('conflict');
    expect((await start(d.site2)).statusCode).toBe(201); // another site is independent

    for (let round = 0; round < 3; round++) {
      const org = await freshOrg(d);
      const both = await Promise.all(
        [0, 1].map(() =>
          call(d.t.app, 'POST', '/v1/rollcalls', { key: org.key, body: { site_id: org.site } }),
        ),
      );
      expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
      const active = await call(d.t.app, 'GET', `/v1/rollcalls?site_id=${org.site}&status=active`, {
        key: org.key,
      });
      d.contract.expectValid(active, 'GET', '/v1/rollcalls');
      expect(active.json().data).toHaveLength(1);
    }
  });

  it('employees clocked in at the site (attendance) are on the roll call; clocked out or elsewhere are not', async () => {
    const clock = (site: string, direction: 'in' | 'out', minutesAgo: number) =>
      call(d.t.app, 'POST', '/v1/attendance/events', {
        key: d.key,
        body: {
          person_id: d.host,
          site_id: site,
          direction,
          occurred_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
          method: 'card',
        },
      });
    expect((await clock(d.site, 'in', 30)).statusCode).toBe(201);
    const onSite = (await start()).json();
    expect(onSite.people).toEqual([
      expect.objectContaining({ subject_id: d.host, kind: 'employee', name: 'Ama Host' }),
    ]);
    await call(d.t.app, 'POST', `/v1/rollcalls/${onSite.id}/close`, { key: d.key, body: {} });
    expect((await clock(d.site, 'out', 10)).statusCode).toBe(201);
    expect((await clock(d.site2, 'in', 5)).statusCode).toBe(201);
    const gone = (await start()).json();
    expect(gone.people).toEqual([]);
    await call(d.t.app, 'POST', `/v1/rollcalls/${gone.id}/close`, { key: d.key, body: {} });
  });

  it('erasing a visitor keeps them on past roll calls without their name', async () => {
    const v = await checkedIn('Erase Me Please');
    const rc = (await start()).json();
    expect((await call(d.t.app, 'DELETE', `/v1/visitors/${v.visitor.id}`, { key: d.key })).statusCode).toBe(
      204,
    );
    const got = (await call(d.t.app, 'GET', `/v1/rollcalls/${rc.id}`, { key: d.key })).json();
    expect(got.people).toEqual([expect.objectContaining({ subject_id: v.visitor.id, name: null })]);
    expect(JSON.stringify(got)).not.toMatch(/Erase Me/);
  });
});
