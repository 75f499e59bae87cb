import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call, TestOrg } from '../../support/platform-fixtures';
import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { Clock } from '../../../src/common/clock';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The fixture month: March 2026 (1 March is a Sunday) at a site in Africa/Accra (UTC), shift "Day" 09:00–17:00,
 * 10 minutes' grace, Monday to Friday; 6 March is a public holiday; P2 is on annual leave 9–13 March.
 */
export const MARCH = { from: '2026-03-01', to: '2026-03-31' };

/**
 * When the fixture's punches are recorded (the app's clock, running on from there): the end of March 2026, since
 * a clock event is accepted only within 31 days of the server's clock.
 */
const RECORDED_AT = Date.parse('2026-03-31T20:00:00Z');

/** Runs `fn` with the app's clock reading `at` (and running on), then gives the clock back as it was. */
async function asOf<T>(app: NestFastifyApplication, at: number, fn: () => Promise<T>): Promise<T> {
  const clock = app.get(Clock);
  const own = Object.getOwnPropertyDescriptor(clock, 'now');
  const from = Date.now();
  clock.now = () => new Date(at + (Date.now() - from));
  try {
    return await fn();
  } finally {
    if (own) Object.defineProperty(clock, 'now', own);
    else Reflect.deleteProperty(clock, 'now');
  }
}

export async function fixtureMonth(app: NestFastifyApplication, org: TestOrg, key: string) {
  const site = org.sites.find((s) => !s.livemode)!.id;
  const tenant = { organisationId: org.id, livemode: false };
  const person = async (n: number) =>
    (
      await call(app, 'POST', '/v1/people', {
        key,
        body: {
          name: `Person ${n}`,
          email: `p${n}@staff.test`,
          employee_number: `E00${n}`,
          department: 'Ops',
        },
      })
    ).json().id as string;
  const [p1, p2, p3] = [await person(1), await person(2), await person(3)];
  const svc = app.get(AttendanceService);
  const shift = await svc.saveShift(tenant, null, {
    name: 'Day',
    site_id: site,
    start_time: '09:00',
    end_time: '17:00',
    grace_minutes: 10,
    days_of_week: [1, 2, 3, 4, 5],
    person_ids: [p1, p2, p3],
  });
  await svc.addHoliday(tenant, { day: '2026-03-06', name: 'Independence Day' });
  await svc.addLeave(tenant, {
    person_id: p2,
    leave_type: 'annual',
    first_day: '2026-03-09',
    last_day: '2026-03-13',
  });
  const started = Date.now();
  const clock = (
    person_id: string,
    direction: 'in' | 'out',
    at: string,
    extra: Record<string, unknown> = {},
  ) =>
    asOf(app, RECORDED_AT + (Date.now() - started), () =>
      call(app, 'POST', '/v1/attendance/events', {
        key,
        body: {
          person_id,
          site_id: site,
          direction,
          occurred_at: at,
          method: 'card',
          device_id: 'T1',
          ...extra,
        },
      }),
    );
  const made: Json[] = [];
  for (const [p, d, at, extra] of [
    [p1, 'in', '2026-03-02T09:05:00Z'],
    [p1, 'out', '2026-03-02T17:00:00Z'],
    [p1, 'in', '2026-03-03T09:25:00Z'],
    [p1, 'out', '2026-03-03T16:30:00Z'],
    [p1, 'in', '2026-03-04T08:55:00Z'],
    [p1, 'in', '2026-03-05T09:00:00Z', { offline: true }],
    [p1, 'out', '2026-03-05T18:15:00Z', { method: 'manual' }],
    [p1, 'in', '2026-03-07T10:00:00Z'],
    [p1, 'out', '2026-03-07T12:00:00Z'],
    [p2, 'in', '2026-03-02T09:11:00Z'],
    [p2, 'out', '2026-03-02T17:00:00Z'],
    [p3, 'in', '2026-03-03T09:10:00Z'],
  ] as [string, 'in' | 'out', string, Record<string, unknown>?][]) {
    const res = await clock(p, d, at, extra);
    if (res.statusCode !== 201) throw new Error(`fixture clock event: ${res.statusCode} ${res.body}`);
    made.push(res.json());
  }
  return { site, p1, p2, p3, shift, made, clock };
}
