import { DiscoveryService, Reflector } from '@nestjs/core';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { bootTestApp, TestApp } from '../../harness';
import { until } from '../../support/until';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { UnitOfWork } from '../../../src/database/unit-of-work';
import { newId } from '../../../src/common/ids';
import type { Tenant } from '../../../src/visitor/platform/tenant';
import { VISITOR_DATA, VisitorDataHolder } from '../../../src/visitor/platform/visitor-data';
import { AttendanceRepository } from '../../../src/visitor/attendance/attendance.repository';
import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { BookingTypesRepository } from '../../../src/visitor/booking-types/booking-types.repository';
import { BookingsRepository } from '../../../src/visitor/bookings/bookings.repository';
import { DeliveriesRepository } from '../../../src/visitor/deliveries/deliveries.repository';
import { PeopleRepository } from '../../../src/visitor/people/people.repository';
import { RollcallsRepository } from '../../../src/visitor/rollcalls/rollcalls.repository';
import { VisitsRepository } from '../../../src/visitor/visits/visits.repository';
import { WatchlistRepository } from '../../../src/visitor/watchlist/watchlist.repository';
import { WebhooksRepository } from '../../../src/visitor/webhooks/webhooks.repository';
import { MessagesRepository } from '../../../src/visitor/messages/messages.repository';
import type { MessageRow } from '../../../src/visitor/messages/messages.service';
import { VisitorErasure } from '../../../src/visitor/visitors/visitor-erasure.service';
import { expectStatus, listAll, twoOrganisations, World } from './tenancy-fixtures';
// after tenancy-fixtures, which spreads this module's tables (the two import each other)
import { bookingType } from './bookings.fixtures';
import { writeMethods } from './write-statements';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Tenancy of writes, statement by statement. The HTTP tenancy test (tenancy.e2e-spec.ts) cannot see a write
 * statement that forgot its tenant condition: every route reads the object in its tenant before it writes. Here
 * each repository method that writes is called directly with organisation A's test-mode ids, once as
 * organisation B (test mode) and once as A in live mode, and must change nothing of anyone's but, where the case
 * says so, add rows of the caller's own tenant; then A's own call must change A's rows (so the probe would have
 * seen a write that ignored the tenant). A write method of a repository without a case (or a reasoned
 * exemption) fails the test, named.
 */

const TEST_FILE = 'test/visitor/tenancy/writes.e2e-spec.ts';

interface Ctx {
  app: TestApp['app'];
  ds: DataSource;
  w: World;
  pg: Client;
  /** A's test-mode objects made in beforeAll. */
  a: Record<string, string>;
  tenantA(): Tenant;
}

interface WriteCase {
  /** Makes what the call needs in A's test mode; returns the call, run once per tenant. */
  prepare(c: Ctx): Promise<(t: Tenant) => Promise<unknown>>;
  /** Whether the method's answer to a stranger says nothing was found or affected (default: any answer). */
  refused?: (result: unknown) => boolean;
  /** A stranger's call may fail with this error instead (nothing written: its transaction rolls back). */
  throws?: RegExp;
  /** Tables where a stranger's call may add rows of its own tenant (e.g. the roll call it starts). */
  strangerAdds?: string[];
}

/** Runs `fn` in a transaction of its own (methods that take the caller's EntityManager). */
const inTx = <T>(c: Ctx, fn: (m: EntityManager) => Promise<T>): Promise<T> => c.ds.transaction(fn);

let seq = 0;
const next = () => ++seq;
const newPhone = () => `+23324${String(6000000 + next()).padStart(7, '0')}`;

/**
 * A whole-row save (the console's edit) of A's row as read back, in the stranger's tenant: it must neither
 * overwrite A's row nor move it into the stranger's tenant. The id is taken, so the stranger's insert fails on the
 * primary key (nothing written: its transaction rolls back).
 */
function takeOver<R extends Tenant & { name: string; updatedAt: Date }>(
  read: (c: Ctx) => Promise<R | null>,
  save: (c: Ctx, m: EntityManager, row: R) => Promise<void>,
): WriteCase {
  return {
    prepare: async (c) => {
      const current = (await read(c))!;
      return (t) =>
        inTx(c, (m) =>
          save(c, m, {
            ...current,
            organisationId: t.organisationId,
            livemode: t.livemode,
            name: `Taken over ${next()}`,
            updatedAt: new Date(),
          }),
        );
    },
    throws: /duplicate key/,
  };
}

/**
 * One case per repository method whose SQL writes (`Class.method`). A stranger's call names A's test-mode objects;
 * the second argument of each method is the tenant (or, for inserts taking a row, the row's tenant columns).
 */
const CASES: Record<string, WriteCase> = {
  'VisitsRepository.update': {
    prepare: async (c) => (t) =>
      inTx(c, (m) => c.app.get(VisitsRepository).update(m, t, c.a.visit, { purpose: `Changed ${next()}` })),
  },
  'VisitsRepository.createVisit': {
    // the stranger's visitor has the phone of A's visitor: A's visitor record must not be refreshed
    prepare: async (c) => (t) =>
      inTx(c, (m) => {
        const now = new Date();
        return c.app.get(VisitsRepository).createVisit(
          m,
          t,
          {
            id: newId('visitor'),
            name: `Renamed ${next()}`,
            phone: c.a.visitorPhone,
            email: null,
            company: 'X',
          },
          {
            id: newId('visit'),
            status: 'expected',
            type: 'meeting',
            source: 'invitation',
            site_id: c.a.site,
            gate_id: null,
            host_id: c.a.host,
            purpose: 'Probe',
            expected_at: now,
            expected_until: null,
            pass_channels: [],
            custom_fields: {},
            created_at: now,
          },
          { id: newId('pass'), channels: [], created_at: now },
        );
      }),
    strangerAdds: ['visitor', 'visit', 'visit_pass'],
  },
  'PeopleRepository.update': {
    prepare: async (c) => (t) =>
      inTx(c, (m) => c.app.get(PeopleRepository).update(m, t, c.a.host, { jobTitle: `Changed ${next()}` })),
  },
  'PeopleRepository.upsertByEmail': {
    // a stranger's import naming A's host's e-mail makes a person of its own, and leaves A's alone
    prepare: async (c) => (t) =>
      inTx(c, (m) =>
        c.app.get(PeopleRepository).upsertByEmail(
          m,
          t,
          [
            {
              name: `Imported ${next()}`,
              email: c.a.hostEmail,
              phone: null,
              department: 'Imported',
              job_title: null,
              site_ids: [],
              employee_number: null,
            },
          ],
          new Date(),
        ),
      ),
    strangerAdds: ['person'],
  },
  'BookingsRepository.update': {
    prepare: async (c) => (t) =>
      inTx(c, (m) =>
        c.app.get(BookingsRepository).update(m, t, c.a.booking, { attendeeCompany: `X ${next()}` }),
      ),
  },
  'BookingTypesRepository.take': {
    prepare: async (c) => (t) =>
      inTx(c, (m) =>
        c.app.get(BookingTypesRepository).take(m, t, c.a.bookingType, new Date(c.a.bookingStart), 1000),
      ),
    refused: (r) => r === false,
  },
  'BookingTypesRepository.release': {
    prepare: async (c) => (t) =>
      inTx(c, (m) =>
        c.app.get(BookingTypesRepository).release(m, t, c.a.bookingType, new Date(c.a.bookingStart)),
      ),
  },
  'BookingTypesRepository.save': takeOver(
    (c) => c.app.get(BookingTypesRepository).find(c.tenantA(), c.a.bookingType),
    (c, m, row) => c.app.get(BookingTypesRepository).save(m, row),
  ),
  'DeliveriesRepository.leaveReceived': {
    prepare: async (c) => {
      const d = await expectStatus(c.w, c.w.aTest, 'POST', '/v1/deliveries', 201, {
        site_id: c.a.site,
        recipient_id: c.a.host,
        description: `Parcel ${next()}`,
      });
      return (t) =>
        inTx(c, (m) =>
          c.app.get(DeliveriesRepository).leaveReceived(m, t, d.id as string, {
            status: 'returned',
            returned_at: new Date(),
            return_reason: 'Probe',
          }),
        );
    },
    refused: (r) => r === null,
  },
  'DeliveriesRepository.setNotified': {
    prepare: async (c) => (t) =>
      c.app.get(DeliveriesRepository).setNotified(t, c.a.delivery, `sms${next()}`, new Date()),
  },
  'RollcallsRepository.start': {
    // a stranger's roll call at A's second site, naming A's host: it must snapshot none of A's people or visitors
    prepare: async (c) => {
      const v = await expectStatus(c.w, c.w.aTest, 'POST', '/v1/visits', 201, {
        site_id: c.a.site2,
        host_id: c.a.host,
        type: 'meeting',
        visitor: { name: 'Kofi Onsite', phone: newPhone() },
      });
      await expectStatus(c.w, c.w.aTest, 'POST', `/v1/visits/${v.id}/check-in`, 200, {});
      return (t) =>
        inTx(c, (m) =>
          c.app
            .get(RollcallsRepository)
            .start(m, t, { id: newId('rollcall'), siteId: c.a.site2, startedBy: null, now: new Date() }, [
              c.a.host,
            ]),
        );
    },
    strangerAdds: ['rollcall'],
  },
  'RollcallsRepository.close': {
    prepare: async (c) => (t) =>
      inTx(c, (m) => c.app.get(RollcallsRepository).close(m, t, c.a.rollcall, null, new Date())),
    refused: (r) => r === false,
  },
  'AttendanceRepository.saveShift': takeOver(
    (c) => c.app.get(AttendanceRepository).findShift(c.tenantA(), c.a.shift),
    (c, m, row) => c.app.get(AttendanceRepository).saveShift(m, row),
  ),
  'AttendanceRepository.assign': {
    // A's host onto a shift: a stranger's assignment (its own row) must not move A's host off A's shift
    prepare: async (c) => {
      const other = await c.app.get(AttendanceService).saveShift(c.tenantA(), null, {
        name: `Second shift ${next()}`,
        site_id: c.a.site,
        start_time: '10:00',
        end_time: '18:00',
        days_of_week: [1, 2, 3],
      });
      return (t) => inTx(c, (m) => c.app.get(AttendanceRepository).assign(m, t, other.id, [c.a.host]));
    },
    strangerAdds: ['shift_assignment'],
  },
  'AttendanceRepository.setConsent': {
    prepare: async (c) => (t) =>
      inTx(c, (m) => c.app.get(AttendanceRepository).setConsent(m, t, c.a.host, 'face', false, new Date())),
    strangerAdds: ['attendance_consent'],
  },
  'WatchlistRepository.delete': {
    prepare: async (c) => {
      const e = await expectStatus(c.w, c.w.aTest, 'POST', '/v1/watchlist-entries', 201, {
        name: `Ozymandias Probe ${next()}`,
        reason: 'Tenancy probe',
        severity: 'low',
      });
      return (t) => c.app.get(WatchlistRepository).delete(t, e.id as string);
    },
    refused: (r) => r === false,
  },
  'VisitsRepository.setWatchlist': {
    // the flag the watchlist built, stored on the visit: cleared first, A's own call sets it again
    prepare: async (c) => {
      await c.pg.query(`UPDATE visitor.visit SET watchlist = NULL WHERE id = $1`, [c.a.visit]);
      const flag = { flagged: true, severity: 'low', matches: [] } as never;
      return (t) => inTx(c, (m) => c.app.get(VisitsRepository).setWatchlist(m, t, c.a.visit, flag));
    },
  },
  'WebhooksRepository.updateEndpoint': {
    prepare: async (c) => (t) =>
      c.app
        .get(WebhooksRepository)
        .updateEndpoint(t, c.a.endpoint, { description: `Changed ${next()}` })
        .then(
          () => 'updated',
          (e: Error) => e.message,
        ),
    // the method reads the row back: for a stranger it is not there
    refused: (r) => typeof r === 'string' && r.includes('vanished'),
  },
  'WebhooksRepository.deleteEndpoint': {
    // A's endpoint with a delivery pending: a stranger's delete must neither delete it nor fail the delivery
    prepare: async (c) => {
      const ep = await expectStatus(c.w, c.w.aTest, 'POST', '/v1/webhook-endpoints', 201, {
        url: c.w.receiver.url(`/ok/writes-${next()}`),
        enabled_events: ['person.created'],
      });
      await expectStatus(c.w, c.w.aTest, 'POST', '/v1/people', 201, {
        name: `Pending Delivery ${next()}`,
        email: `pending.${next()}@a.test`,
      });
      await until(async () => {
        const { rows } = await c.pg.query(
          `SELECT 1 FROM visitor.webhook_delivery WHERE endpoint_id = $1 AND status = 'pending'`,
          [ep.id],
        );
        return rows.length > 0;
      });
      return (t) => c.app.get(WebhooksRepository).deleteEndpoint(t, ep.id as string, new Date());
    },
  },
  'WebhooksRepository.insertDeliveriesOfEvents': {
    // an event of the stranger's (with A's event's id and type): A's endpoints must get no delivery of it
    prepare: async (c) => {
      const [e] = (await listAll(c.w, c.w.aTest, '/events?type=person.created')).slice(-1);
      return (t) =>
        inTx(c, (m) =>
          c.app
            .get(WebhooksRepository)
            .insertDeliveriesOfEvents(m, t, [
              { id: e.id as string, type: 'person.created', createdAt: new Date(), dueAt: new Date() },
            ]),
        );
    },
    refused: (r) => Array.isArray(r) && r.length === 0,
  },
};

/** Every `eraseVisitor` of a visitor-data holder: one case, run holder by holder (see the test). */
const ERASE = 'eraseVisitor';

const INSERT_VALUES =
  'INSERT … VALUES of one new row in the tenant the row itself names: it changes no existing row, and the ids it refers to are checked by its service before (the HTTP tests prove those: CREATES in tenancy-fixtures.ts and the body-id probes here)';
const BY_ID_AFTER_READ = (read: string) =>
  `takes no tenant: it writes by the id of a row the caller has just read in its tenant (${read}), in the same transaction`;
const WORKER =
  'a worker or sweeper step by a delivery or pass id the job itself claimed (no request names it); the claim is by id and status only';
const ORGANISATION =
  'an organisation-wide or console record (no mode): keyed by the organisation id of the signed-in account or the credential, outside the /v1 tenant (organisation + mode) this test proves';

const SEEDER =
  "the bulk seeder's INSERT … SELECT of generated rows for the organisations it has just created (`gatehouse seed`): no request reaches it, and its rows name only those organisations";

const IDEMPOTENCY =
  "filtered on the credential's tenant and the key (and the claim's request hash); proven over HTTP by tenancy.e2e-spec.ts (B reusing A's Idempotency-Key gets its own object), and bound to the credential since item 9";

const TENANT_WHERE =
  "a test helper's UPDATE filtered on the caller's tenant (organisation and mode) and the id; proven over HTTP by tenancy.e2e-spec.ts (POST /test-helpers/events/{evt_id}/age: B's key and A's live key change nothing)";
const SANDBOX =
  "the sandbox reset's DELETE of the tenant's rows, filtered on organisation and mode; assertSandbox refuses a live tenant before any statement; proven over HTTP by tenancy-fixtures.ts (SINGLETONS: A's reset leaves B's visit) and test/visitor/test-helpers.e2e-spec.ts (live rows unchanged)";

/** Write methods this test does not call, each with the reason. */
const EXEMPT: Record<string, string> = {
  'AccountsRepository.insert': ORGANISATION,
  'AccountsRepository.changePassword': ORGANISATION,
  'AccountsRepository.markSignedIn': ORGANISATION,
  'AccountsRepository.insertSession': ORGANISATION,
  'AccountsRepository.revokeSession': ORGANISATION,
  'AccountsRepository.setRole': BY_ID_AFTER_READ('AccountsRepository.lockForRoleChange, in the organisation'),
  'AccountsRepository.disable': BY_ID_AFTER_READ('AccountsRepository.lockForRoleChange, in the organisation'),
  'ApiKeysRepository.insert': ORGANISATION,
  'ApiKeysRepository.revoke': ORGANISATION,
  'ApiKeysRepository.touch': ORGANISATION,
  'ApiKeysRepository.upsertCustomScope': ORGANISATION,
  'ConnectedAppsRepository.requestApproval': ORGANISATION,
  'ConnectedAppsRepository.insertConnection': ORGANISATION,
  'ConnectedAppsRepository.revokeClient': ORGANISATION,
  'ConnectedAppsRepository.decide': ORGANISATION,
  'ConnectedAppsRepository.touch': BY_ID_AFTER_READ('the connection of the OAuth token just resolved'),
  'ConnectedAppsRepository.revokeGrantConnection':
    'takes no tenant: it ends the connection of a grant the OAuth engine itself just revoked (a replayed code or refresh token); no request names the grant',
  'OrganisationsRepository.insertOrganisation': ORGANISATION,
  'OrganisationsRepository.updateOrganisation': ORGANISATION,
  'OrganisationsRepository.insertSite': ORGANISATION,
  'OrganisationsRepository.setWatchlistHold': ORGANISATION,
  'AuditRepository.insertMany': INSERT_VALUES,
  'AttendanceRepository.insertEvent': INSERT_VALUES,
  'AttendanceRepository.insertLeave': INSERT_VALUES,
  'AttendanceRepository.insertHoliday': INSERT_VALUES,
  'BookingsRepository.insert': INSERT_VALUES,
  'DeliveriesRepository.insert': INSERT_VALUES,
  'EventsRepository.insert': INSERT_VALUES,
  'EventsRepository.seedBulk': SEEDER,
  'FilesRepository.insert': INSERT_VALUES,
  'MessagesRepository.insert': INSERT_VALUES,
  'PeopleRepository.insert': INSERT_VALUES,
  'PeopleRepository.seedHosts': SEEDER,
  'VisitsRepository.seedBulk': SEEDER,
  'PassesRepository.insertPass': INSERT_VALUES,
  'WatchlistRepository.insert': INSERT_VALUES,
  'WebhooksRepository.insertEndpoint': INSERT_VALUES,
  'WebhooksRepository.insertDeliveries': INSERT_VALUES,
  'FormsRepository.save':
    'INSERT of a new form version in the tenant the caller names (versions are never updated)',
  'EventsRepository.purgeBefore': 'a retention sweep over every organisation (no tenant by design)',
  'EventsRepository.backdate': TENANT_WHERE,
  ...Object.fromEntries(
    [
      'AttendanceRepository',
      'BookingTypesRepository',
      'BookingsRepository',
      'DeliveriesRepository',
      'EventsRepository',
      'FilesRepository',
      'MessagesRepository',
      'IdempotencyRepository',
      'RollcallsRepository',
      'VisitorsRepository',
      'VisitsRepository',
      'WatchlistRepository',
    ].map((r) => [`${r}.clearSandbox`, SANDBOX]),
  ),
  'IdempotencyRepository.claim': IDEMPOTENCY,
  'IdempotencyRepository.complete': IDEMPOTENCY,
  'IdempotencyRepository.insertAnswered': IDEMPOTENCY,
  'IdempotencyRepository.renew': IDEMPOTENCY,
  'IdempotencyRepository.release': IDEMPOTENCY,
  'IdempotencyRepository.purge': 'a retention sweep over every organisation (no tenant by design)',
  'FilesRepository.settle': BY_ID_AFTER_READ('the file the signed upload link names'),
  'RollcallsRepository.mark': BY_ID_AFTER_READ('the roll call, locked with RollcallsRepository.find'),
  'RollcallsRepository.touch': BY_ID_AFTER_READ('the roll call, locked with RollcallsRepository.find'),
  'PassesRepository.revokePasses': BY_ID_AFTER_READ('the visit, locked with VisitsRepository.find'),
  'PassesRepository.finishPass': WORKER,
  'VisitTypesRepository.upsert':
    "INSERT … ON CONFLICT of the row the caller's tenant names: the conflict target is the primary key (organisation, mode, key), so it can only update that tenant's own row",
  'VisitTypesRepository.deleteEverywhere':
    "removes one organisation's visit type in both modes (the console's organisation-wide delete): filtered on the organisation",
  'WebhooksRepository.claim': WORKER,
  'WebhooksRepository.recordOutcome': WORKER,
  'WebhooksRepository.abandon': WORKER,
  'WebhooksRepository.resumeHeld': WORKER,
  'WebhooksRepository.retryDelivery': BY_ID_AFTER_READ("the delivery, read with the console's organisation"),
  'WebhooksRepository.eraseExcerpts':
    "erasure's step of WebhookDeliveriesService.eraseVisitor, a @HoldsVisitorData holder: the erasure probe below calls it as each stranger with A's visitor",
};

describe('tenancy of writes: every repository write keeps to its organisation and mode', () => {
  let t: TestApp;
  let pg: Client;
  const w = {} as World;
  const c = {} as Ctx;
  let tables: { name: string; tenant: boolean }[];
  let holders: Map<string, VisitorDataHolder>;

  beforeAll(async () => {
    w.receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: { RUN_WORKER: 'false', WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', TEST_MODE_RATE_PER_MINUTE: '100000' },
    });
    w.app = t.app;
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    await twoOrganisations(w);
    Object.assign(c, {
      app: t.app,
      ds: t.app.get(DataSource),
      w,
      pg,
      tenantA: () => ({ organisationId: w.a.id, livemode: false }),
    });

    // A's test-mode objects the cases name
    const a: Record<string, string> = { site: w.aSite, site2: w.aApprovalSite, hostEmail: 'ama@writes.test' };
    a.host = (
      await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, { name: 'Ama A', email: a.hostEmail })
    ).id;
    w.aHost = a.host;
    w.bHost = (
      await expectStatus(w, w.bTest, 'POST', '/v1/people', 201, { name: 'Kojo B', email: 'kojo@b.test' })
    ).id;
    a.endpoint = (
      await expectStatus(w, w.aTest, 'POST', '/v1/webhook-endpoints', 201, {
        url: w.receiver.url('/ok/writes'),
        enabled_events: ['*'],
      })
    ).id;
    a.visitorPhone = newPhone();
    // a watchlist entry the visitor matches (by phone), so the visit has a match erasure empties
    await expectStatus(w, w.aTest, 'POST', '/v1/watchlist-entries', 201, {
      name: 'Quintus Nobody',
      phone: a.visitorPhone,
      reason: 'Tenancy probe',
      severity: 'low',
    });
    const visit = await expectStatus(w, w.aTest, 'POST', '/v1/visits', 201, {
      site_id: a.site,
      host_id: a.host,
      type: 'meeting',
      visitor: { name: 'Efua Writes', phone: a.visitorPhone, email: 'efua@writes.test' },
    });
    a.visit = visit.id;
    a.visitor = (visit.visitor as Json).id;
    await expectStatus(w, w.aTest, 'POST', `/v1/visits/${a.visit}/check-in`, 200, {});
    a.rollcall = (await expectStatus(w, w.aTest, 'POST', '/v1/rollcalls', 201, { site_id: a.site })).id;
    await expectStatus(w, w.aTest, 'POST', `/v1/files`, 201, {
      purpose: 'visitor_photo',
      content_type: 'image/png',
      size: 100,
      visit_id: a.visit,
    });
    a.delivery = (
      await expectStatus(w, w.aTest, 'POST', '/v1/deliveries', 201, {
        site_id: a.site,
        recipient_id: a.host,
        description: 'Parcel',
      })
    ).id;
    a.bookingType = await bookingType(w, 'a');
    a.bookingStart = new Date(Math.ceil(Date.now() / 1_800_000) * 1_800_000 + 2 * 86_400_000).toISOString();
    const booking = await expectStatus(w, w.aTest, 'POST', '/v1/bookings', 201, {
      booking_type_id: a.bookingType,
      start: a.bookingStart,
      attendee: { name: 'Esi Writes', phone: a.visitorPhone },
    });
    a.booking = booking.id;
    a.shift = (
      await t.app.get(AttendanceService).saveShift(c.tenantA(), null, {
        name: 'Writes shift',
        site_id: a.site,
        start_time: '09:00',
        end_time: '17:00',
        days_of_week: [1, 2, 3, 4, 5],
        person_ids: [a.host],
      })
    ).id;
    await expectStatus(w, w.aTest, 'POST', `/v1/people/${a.host}/attendance-evidence`, 201, {
      kind: 'face',
      consent: 'given',
    }).catch(() =>
      expectStatus(w, w.aTest, 'POST', `/v1/people/${a.host}/attendance-evidence`, 200, {
        kind: 'face',
        consent: 'given',
      }),
    );
    // what the worker (not running here) would have stored: a message about the visit, an attempt with an answer
    await t.app.get(MessagesRepository).insert({
      id: newId('msg'),
      organisationId: w.a.id,
      livemode: false,
      channel: 'sms',
      recipient: a.visitorPhone,
      subject: null,
      body: 'Your pass',
      provider: 'test',
      status: 'sent',
      error: null,
      relatedId: a.visit,
      createdAt: new Date(),
    } as MessageRow);
    const { rows: deliveries } = await pg.query<{ id: string; endpoint_id: string }>(
      `SELECT d.id, d.endpoint_id FROM visitor.webhook_delivery d JOIN visitor.event e ON e.id = d.event_id
        WHERE d.endpoint_id = $1 AND e.type = 'visit.created' AND strpos(e.body, $2) > 0`,
      [a.endpoint, a.visit],
    );
    expect(deliveries.length).toBe(1);
    await t.app.get(WebhooksRepository).recordOutcome(
      {
        deliveryId: deliveries[0].id,
        endpointId: a.endpoint,
        attemptNumber: 1,
        attemptedAt: new Date(),
        statusCode: 200,
        durationMs: 5,
        error: null,
        excerpt: `{"echo":"${a.visitorPhone}"}`,
        succeeded: true,
        nextAttemptAt: null,
      },
      86_400_000,
    );
    c.a = a;

    const { rows } = await pg.query<{ name: string; tenant: boolean }>(
      `SELECT table_name AS name,
              bool_or(column_name = 'organisation_id') AND bool_or(column_name = 'livemode') AS tenant
         FROM information_schema.columns WHERE table_schema = 'visitor' GROUP BY table_name ORDER BY 1`,
    );
    tables = rows;

    const discovery = t.app.get(DiscoveryService);
    const reflector = t.app.get(Reflector);
    holders = new Map();
    for (const p of discovery.getProviders())
      if (p.metatype && p.instance && reflector.get(VISITOR_DATA, p.metatype) !== undefined)
        holders.set((p.metatype as { name: string }).name, p.instance as VisitorDataHolder);
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    await t?.close();
    await w.receiver?.stop();
  });

  /** Every row of every visitor table, as text, by table. */
  async function snapshot(): Promise<Map<string, Map<string, Json>>> {
    const out = new Map<string, Map<string, Json>>();
    for (const tb of tables) {
      // An organisation's reference_version is a stamp for the reference checks' cache, which a change of its sites,
      // hosts, types or forms in either mode bumps (ReferenceCache): no tenant's data, so not compared.
      const row = tb.name === 'organisation' ? `to_jsonb(x) - 'reference_version'` : 'to_jsonb(x)';
      const { rows } = await pg.query<{ r: Json }>(`SELECT ${row} AS r FROM visitor."${tb.name}" x`);
      out.set(tb.name, new Map(rows.map(({ r }) => [JSON.stringify(r), r])));
    }
    return out;
  }

  /** What changed between two snapshots: rows gone and rows new, by table. */
  function diff(before: Map<string, Map<string, Json>>, after: Map<string, Map<string, Json>>) {
    const changes: { table: string; gone: Json[]; added: Json[] }[] = [];
    for (const [table, rows] of after) {
      const old = before.get(table) ?? new Map();
      const gone = [...old.keys()].filter((k) => !rows.has(k)).map((k) => old.get(k)!);
      const added = [...rows.keys()].filter((k) => !old.has(k)).map((k) => rows.get(k)!);
      if (gone.length || added.length) changes.push({ table, gone, added });
    }
    return changes;
  }

  const strangers = (): [string, Tenant][] => [
    ['org B (test mode)', { organisationId: w.b.id, livemode: false }],
    ['org A in live mode', { organisationId: w.a.id, livemode: true }],
  ];

  /** Problems of one stranger's call: anything changed but rows of its own tenant added where allowed. */
  function judge(
    name: string,
    who: string,
    tenant: Tenant,
    changes: ReturnType<typeof diff>,
    allowed: string[],
  ): string[] {
    const problems: string[] = [];
    for (const ch of changes) {
      const own = (r: Json) => r.organisation_id === tenant.organisationId && r.livemode === tenant.livemode;
      const bad =
        ch.gone.length > 0 || !allowed.includes(ch.table) || !ch.added.every((r) => own(r))
          ? { gone: ch.gone, added: ch.added }
          : null;
      if (bad)
        problems.push(
          `${name} as ${who} with A's ids changed visitor.${ch.table}: ${JSON.stringify(bad).slice(0, 600)}`,
        );
    }
    return problems;
  }

  async function probe(name: string, run: (t: Tenant) => Promise<unknown>, wc: WriteCase): Promise<string[]> {
    const problems: string[] = [];
    for (const [who, tenant] of strangers()) {
      const before = await snapshot();
      let result: unknown;
      try {
        result = await run(tenant);
      } catch (e) {
        result = e;
        if (!wc.throws?.test((e as Error).message))
          problems.push(`${name} as ${who} threw ${(e as Error).message}`);
      }
      problems.push(...judge(name, who, tenant, diff(before, await snapshot()), wc.strangerAdds ?? []));
      if (wc.refused && !(result instanceof Error) && !wc.refused(result))
        problems.push(`${name} as ${who} answered ${JSON.stringify(result)}: not "nothing found"`);
    }
    // The case fits the method: A's own call writes A's rows, so a write ignoring the tenant would have shown.
    const before = await snapshot();
    await run(c.tenantA());
    const own = diff(before, await snapshot());
    if (!own.length)
      problems.push(
        `${name}: A's own call changed nothing, so the case proves nothing; fix it in ${TEST_FILE}`,
      );
    return problems;
  }

  /** Waits until nothing more changes (requests' after-effects settle), so a probe sees only its own call. */
  async function quiet(): Promise<void> {
    let last = JSON.stringify(diff(new Map(), await snapshot()));
    await until(async () => {
      await new Promise((r) => setTimeout(r, 150));
      const now = JSON.stringify(diff(new Map(), await snapshot()));
      const same = now === last;
      last = now;
      return same;
    }, 20_000);
  }

  it('every repository method whose SQL writes has a case here or a reasoned exemption', () => {
    const methods = writeMethods();
    expect(methods.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const m of methods) {
      const [cls, method] = m.split('.');
      if (CASES[m] || EXEMPT[m]) continue;
      if (method === ERASE && holders.has(cls)) continue;
      problems.push(
        `${m} writes but has no case in CASES (or a reason in EXEMPT) in ${TEST_FILE}${method === ERASE ? ' (and its class is not a @HoldsVisitorData holder)' : ''}`,
      );
    }
    for (const m of [...Object.keys(CASES), ...Object.keys(EXEMPT)])
      if (!methods.includes(m)) problems.push(`${m}: listed in ${TEST_FILE} but no such write method`);
    for (const m of Object.keys(CASES)) if (EXEMPT[m]) problems.push(`${m}: both a case and exempt`);
    expect(problems).toEqual([]);
  });

  it("each write method called as org B, and as A in live mode, with A's test-mode ids changes nothing of A's", async () => {
    const problems: string[] = [];
    for (const [name, wc] of Object.entries(CASES)) {
      const run = await wc.prepare(c);
      await quiet();
      problems.push(...(await probe(name, run, wc)));
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it("every visitor-data holder's eraseVisitor, called as a stranger with A's visitor, erases nothing of A's", async () => {
    expect(holders.size).toBeGreaterThan(5);
    // A's ids are offered as found by earlier holders too: a holder that trusts them without its tenant shows
    const related = [c.a.visit, c.a.booking];
    const problems: string[] = [];
    await quiet();
    for (const [name, holder] of holders) {
      const run = (tenant: Tenant) =>
        inTx(c, (m) =>
          holder.eraseVisitor(new UnitOfWork(m), tenant, {
            visitorId: c.a.visitor,
            phone: c.a.visitorPhone,
            now: new Date(),
            relatedIds: [...related],
          }),
        );
      for (const [who, tenant] of strangers()) {
        const before = await snapshot();
        await run(tenant);
        problems.push(...judge(`${name}.${ERASE}`, who, tenant, diff(before, await snapshot()), []));
      }
    }
    // A's own erasure, holder by holder in erasure's order, changes A's rows in each (so the probes above would
    // have seen a stranger's erasure reach them)
    const order = t.app.get(VisitorErasure).names();
    expect([...holders.keys()].sort()).toEqual([...order].sort());
    const erasure = {
      visitorId: c.a.visitor,
      phone: c.a.visitorPhone,
      now: new Date(),
      relatedIds: [] as string[],
    };
    for (const name of order) {
      const before = await snapshot();
      await inTx(c, (m) => holders.get(name)!.eraseVisitor(new UnitOfWork(m), c.tenantA(), erasure));
      if (!diff(before, await snapshot()).length)
        problems.push(
          `${name}.${ERASE}: A's own erasure changed nothing; give A's visitor data there (${TEST_FILE})`,
        );
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
