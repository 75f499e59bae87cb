import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import { controlClock } from '../../support/clock';
import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { fixtureMonth, MARCH } from './fixture-month';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('attendance over HTTP', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let org: TestOrg;
  let key: string;
  let now: number | null = null;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false', TEST_MODE_RATE_PER_MINUTE: '100000' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    controlClock(t.app, () => now);
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });
  beforeEach(async () => {
    now = null;
    org = await createOrg(t.app, 'pro');
    key = await org.key();
  });

  it('late minutes against the shift and grace; events clocked_in, clocked_out, late', async () => {
    const f = await fixtureMonth(t.app, org, key);
    const late = f.made.map((e) => [e.occurred_at, e.late_minutes]);
    expect(late).toEqual([
      ['2026-03-02T09:05:00.000Z', 0],
      ['2026-03-02T17:00:00.000Z', null],
      ['2026-03-03T09:25:00.000Z', 25],
      ['2026-03-03T16:30:00.000Z', null],
      ['2026-03-04T08:55:00.000Z', 0],
      ['2026-03-05T09:00:00.000Z', 0],
      ['2026-03-05T18:15:00.000Z', null],
      ['2026-03-07T10:00:00.000Z', null], // Saturday: not a shift day
      ['2026-03-07T12:00:00.000Z', null],
      ['2026-03-02T09:11:00.000Z', 11], // beyond 10 minutes' grace: all 11 minutes
      ['2026-03-02T17:00:00.000Z', null],
      ['2026-03-03T09:10:00.000Z', 0], // exactly the grace: on time
    ]);
    const first = f.made[2];
    expect(first).toMatchObject({
      person_id: f.p1,
      site_id: f.site,
      direction: 'in',
      method: 'card',
      device_id: 'T1',
      evidence: null,
      offline: false,
      local_date: '2026-03-03',
      shift_id: f.shift.id,
    });
    const types = await pg.query(
      `SELECT type, count(*)::int AS n FROM visitor.event WHERE organisation_id = $1 AND type LIKE 'attendance.%' GROUP BY type ORDER BY type`,
      [org.id],
    );
    expect(types.rows).toEqual([
      { type: 'attendance.clocked_in', n: 7 },
      { type: 'attendance.clocked_out', n: 5 },
      { type: 'attendance.late', n: 2 },
    ]);
    const url = `/v1/attendance/events?person_id=${f.p2}`;
    const list = await call(t.app, 'GET', url, { key });
    contract.expectValid(list, 'GET', url);
    expect(list.json().data.map((e: Json) => e.id)).toEqual([f.made[9].id, f.made[10].id]);
    const range = `/v1/attendance/events?from=2026-03-05T00:00:00Z&to=2026-03-06T00:00:00Z`;
    expect((await call(t.app, 'GET', range, { key })).json().data.map((e: Json) => e.id)).toEqual([
      f.made[5].id,
      f.made[6].id,
    ]);
    const one = await call(t.app, 'GET', `/v1/attendance/events/${first.id}`, { key });
    contract.expectValid(one, 'GET', `/v1/attendance/events/${first.id}`);
    expect(one.json()).toEqual(first);
    // onSite: P1's last event on 4 March is a clock-in (no clock-out); P2 and P3 are out or never came that day
    const svc = t.app.get(AttendanceService);
    expect(
      await svc.onSite({ organisationId: org.id, livemode: false }, f.site, new Date('2026-03-04T12:00:00Z')),
    ).toEqual([f.p1, f.p3].sort());
    expect(
      await svc.onSite({ organisationId: org.id, livemode: false }, f.site, new Date('2026-03-03T12:00:00Z')),
    ).toEqual([f.p1, f.p3].sort());
    expect(
      await svc.onSite({ organisationId: org.id, livemode: false }, f.site, new Date('2026-03-03T18:00:00Z')),
    ).toEqual([f.p3]);
  });

  it('the summary of the fixture month matches the hand-computed counts', async () => {
    await fixtureMonth(t.app, org, key);
    const url = `/v1/attendance/summary?from=${MARCH.from}&to=${MARCH.to}`;
    const res = await call(t.app, 'GET', url, { key });
    contract.expectValid(res, 'GET', url);
    const got = Object.fromEntries(
      res
        .json()
        .data.map((d: Json) => [
          d.date.slice(8),
          [d.present, d.late, d.on_leave, d.absent, d.public_holiday, d.rest_day],
        ]),
    );
    //                  present late leave absent holiday rest
    const rest = [0, 0, 0, 0, 0, 3];
    const absent = [0, 0, 0, 3, 0, 0];
    const leaveWeek = [0, 0, 1, 2, 0, 0];
    const expected: Record<string, number[]> = {
      '01': rest,
      '02': [1, 1, 0, 1, 0, 0],
      '03': [1, 1, 0, 1, 0, 0],
      '04': [1, 0, 0, 2, 0, 0],
      '05': [1, 0, 0, 2, 0, 0],
      '06': [0, 0, 0, 0, 3, 0],
      '07': [1, 0, 0, 0, 0, 2],
      '08': rest,
      '09': leaveWeek,
      '10': leaveWeek,
      '11': leaveWeek,
      '12': leaveWeek,
      '13': leaveWeek,
    };
    for (let d = 14; d <= 31; d++) {
      const dd = String(d);
      const weekday = new Date(`2026-03-${dd}T12:00:00Z`).getUTCDay();
      expected[dd] = weekday === 0 || weekday === 6 ? rest : absent;
    }
    expect(got).toEqual(expected);
  });

  it('the summary range is at most 31 dates (validation_failed at query.to)', async () => {
    const res = await call(t.app, 'GET', '/v1/attendance/summary?from=2026-03-01&to=2026-04-01', { key });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([{ location: 'query.to', message: expect.stringContaining('31') }]);
    contract.expectValid(res, 'GET', '/v1/attendance/summary?from=2026-03-01&to=2026-04-01');
    expect(
      (await call(t.app, 'GET', '/v1/attendance/summary?from=2026-03-01&to=2026-03-31', { key })).statusCode,
    ).toBe(200);
    const missing = await call(t.app, 'GET', '/v1/attendance/summary?from=2026-03-01', { key });
    expect(missing.json().errors.map((e: Json) => e.location)).toEqual(['query.to']);
  });

  it('evidence needs consent: refused and not stored, then given, then withdrawn', async () => {
    const f = await fixtureMonth(t.app, org, key);
    const count = async () =>
      (await pg.query(`SELECT count(*)::int AS n FROM visitor.attendance_event WHERE person_id = $1`, [f.p3]))
        .rows[0].n;
    const before = await count();
    const withFace = () =>
      f.clock(f.p3, 'in', '2026-03-16T09:00:00Z', { evidence: { kind: 'face', reference: 'file_123' } });
    const refused = await withFace();
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'consent_required']);
    contract.expectValid(refused, 'POST', '/v1/attendance/events');
    const faceMethod = await f.clock(f.p3, 'in', '2026-03-16T09:00:00Z', { method: 'face' });
    expect(faceMethod.json().code).toBe('consent_required');
    expect(await count()).toBe(before);

    const consentUrl = `/v1/people/${f.p3}/attendance-evidence`;
    now = Date.parse('2026-04-01T12:00:00Z');
    const given = await call(t.app, 'POST', consentUrl, { key, body: { kind: 'face', consent: 'given' } });
    contract.expectValid(given, 'POST', consentUrl);
    expect(given.json()).toEqual({
      person_id: f.p3,
      face: true,
      selfie: false,
      location: false,
      updated_at: '2026-04-01T12:00:00.000Z',
    });
    const ok = await withFace();
    expect(ok.statusCode).toBe(201);
    expect(ok.json().evidence).toEqual({ kind: 'face', reference: 'file_123' });
    const selfie = await f.clock(f.p3, 'out', '2026-03-16T17:00:00Z', {
      evidence: { kind: 'selfie', reference: 'x' },
    });
    expect(selfie.json().code).toBe('consent_required');

    await call(t.app, 'POST', consentUrl, { key, body: { kind: 'face', consent: 'withdrawn' } });
    expect((await withFace()).json().code).toBe('consent_required');
    expect(await count()).toBe(before + 1);
    // consent is attendance:manage
    const writer = await org.key({ scopes: ['attendance:write'] });
    expect(
      (
        await call(t.app, 'POST', consentUrl, { key: writer, body: { kind: 'face', consent: 'given' } })
      ).json().code,
    ).toBe('scope_missing');
  });

  it('lists shifts', async () => {
    const f = await fixtureMonth(t.app, org, key);
    const res = await call(t.app, 'GET', '/v1/shifts', { key });
    contract.expectValid(res, 'GET', '/v1/shifts');
    expect(res.json().data).toEqual([
      {
        id: f.shift.id,
        name: 'Day',
        site_id: f.site,
        start_time: '09:00',
        end_time: '17:00',
        grace_minutes: 10,
        days_of_week: [1, 2, 3, 4, 5],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
  });
});
