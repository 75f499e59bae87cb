import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import type { WebhookReceiver } from '../../support/webhook-receiver';
import { AttendanceService } from '../../../src/visitor/attendance/attendance.service';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { VisitTypesService } from '../../../src/visitor/visit-types/visit-types.service';
import {
  BOOKING_BUILDERS,
  BOOKING_CREATES,
  BOOKING_LIST_FILTERS,
  BOOKING_LIST_SOURCES,
  BOOKING_OPERATIONS,
  BOOKING_SINGLETONS,
} from './bookings.fixtures';
import { STREAM_SINGLETONS } from './event-stream.fixtures';
import { DESK_BUILDERS, DESK_CREATES, DESK_LIST_FILTERS, DESK_OPERATIONS } from './desk.fixtures';

/**
 * The fixture table of the tenancy test (tenancy.e2e-spec.ts). Every object is made in organisation A's test
 * mode through /v1 with A's test secret key, except a custom visit type and a published form (no /v1 route
 * creates them; the services the console uses do).
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface World {
  app: NestFastifyApplication;
  receiver: WebhookReceiver;
  a: TestOrg;
  b: TestOrg;
  /** Secret keys: A's test key makes the fixtures; B's test key and A's live key must find none of them. */
  aTest: string;
  aLive: string;
  bTest: string;
  aSite: string;
  /** A test-mode site of A whose check-ins wait for the host's approval. */
  aApprovalSite: string;
  aHost: string;
  bSite: string;
  bHost: string;
}

/**
 * Organisation A (Pro, two sites: live access to the whole REST API) and B (Enterprise: every route), their keys
 * (A's test and live, B's test) and test-mode sites, on `w.app`.
 */
export async function twoOrganisations(w: World): Promise<void> {
  w.a = await createOrg(w.app, 'pro', 2);
  w.b = await createOrg(w.app, 'enterprise');
  [w.aTest, w.aLive, w.bTest] = await Promise.all([
    w.a.key({ mode: 'test' }),
    w.a.key({ mode: 'live' }),
    w.b.key({ mode: 'test' }),
  ]);
  [w.aSite, w.aApprovalSite] = w.a.sites.filter((s) => !s.livemode).map((s) => s.id);
  w.bSite = w.b.sites.find((s) => !s.livemode)!.id;
}

/** Follows a node of an OpenAPI document through its `$ref`s (`#/components/…`) to what they name. */
export const refResolver =
  (doc: Json) =>
  (node: Json | undefined): Json | undefined => {
    let n = node;
    while (n?.$ref)
      n = (n.$ref as string)
        .split('/')
        .slice(1)
        .reduce((o: Json, k: string) => o?.[k], doc);
    return n;
  };

/** A request that must answer `status`; returns the body. Throws naming the request otherwise. */
export async function expectStatus(
  w: World,
  key: string,
  method: Method,
  url: string,
  status: number,
  body?: unknown,
): Promise<Json> {
  const res = await call(w.app, method, url, { key, body });
  if (res.statusCode !== status)
    throw new Error(`fixture: ${method} ${url} answered ${res.statusCode} (expected ${status}): ${res.body}`);
  return res.body ? (res.json() as Json) : {};
}

/** Every item of a /v1 list, following next_cursor to the end. */
export async function listAll(w: World, key: string, path: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  for (let page = 0; page < 50; page++) {
    const url = `/v1${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = await expectStatus(w, key, 'GET', url, 200);
    items.push(...(body.data as Json[]));
    if (!body.has_more) return items;
    cursor = body.next_cursor as string;
  }
  throw new Error(`${path}: more than 50 pages`);
}

let seq = 0;
const next = () => ++seq;
/** A valid Ghanaian mobile number, new each call (so each visit has a visitor of its own). */
const newPhone = () => `+23324${String(7000000 + next()).padStart(7, '0')}`;

/** An object of A's test mode: the values of the path parameters naming it, where to read it back, its list identity. */
export interface Fixture {
  params: Record<string, string>;
  /** GET url (with /v1) that shows the object to A's test key. */
  read: string;
  /** The field that identifies it in a list item (`id` unless said), and its value. */
  item: { field: string; value: string };
}

const fixture = (param: string, value: string, read: string, field = 'id'): Fixture => ({
  params: { [param]: value },
  read,
  item: { field, value },
});

async function person(w: World, variant?: string): Promise<Fixture> {
  const p = await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, {
    name: `Adjoa Tenancy ${next()}`,
    email: `adjoa.${next()}@tenancy.test`,
  });
  if (variant === 'inactive') await expectStatus(w, w.aTest, 'POST', `/v1/people/${p.id}/deactivate`, 200);
  return fixture('person_id', p.id, `/v1/people/${p.id}`);
}

async function visit(w: World, variant = 'expected'): Promise<Fixture> {
  const v = await expectStatus(w, w.aTest, 'POST', '/v1/visits', 201, {
    site_id: variant === 'awaiting_approval' ? w.aApprovalSite : w.aSite,
    host_id: w.aHost,
    type: 'meeting',
    visitor: { name: 'Efua Tenancy', phone: newPhone() },
  });
  if (variant !== 'expected') {
    const checkedIn = await expectStatus(w, w.aTest, 'POST', `/v1/visits/${v.id}/check-in`, 200, {});
    if (checkedIn.status !== variant)
      throw new Error(`fixture: visit is ${checkedIn.status}, not ${variant}`);
  }
  return fixture('visit_id', v.id, `/v1/visits/${v.id}`);
}

async function visitor(w: World): Promise<Fixture> {
  const v = await visit(w);
  const got = await expectStatus(w, w.aTest, 'GET', v.read, 200);
  const id = got.visitor.id as string;
  return fixture('visitor_id', id, `/v1/visitors/${id}`);
}

async function webhookEndpoint(w: World): Promise<Fixture> {
  const ep = await expectStatus(w, w.aTest, 'POST', '/v1/webhook-endpoints', 201, {
    url: w.receiver.url(`/ok/tenancy-${next()}`),
    description: 'A test-mode endpoint',
    enabled_events: ['*'],
  });
  return fixture('whep_id', ep.id, `/v1/webhook-endpoints/${ep.id}`);
}

/** A stored event of A's test mode: the person.created of a new person. */
async function event(w: World): Promise<Fixture> {
  const p = await person(w);
  const events = await listAll(w, w.aTest, '/events?type=person.created');
  const e = events.find((x) => x.data?.object?.id === p.params.person_id);
  if (!e) throw new Error(`fixture: no person.created event for ${p.params.person_id}`);
  return fixture('evt_id', e.id, `/v1/events/${e.id}`);
}

/** An organisation-defined visit type of A's test mode (its key names it; B has none of that key). */
async function visitType(w: World): Promise<Fixture> {
  const key = `tenancy_probe_${next()}`;
  await w.app
    .get(VisitTypesService)
    .save({ organisationId: w.a.id, livemode: false }, key, { name: 'Tenancy probe' });
  return fixture('visit_type', key, `/v1/visit-types/${key}`, 'key');
}

/**
 * How to make the object a path parameter names, by the parameter's name (a new route on an existing resource
 * is covered without a change here). `variant` puts it in the state an operation needs.
 */
export const BUILDERS: Record<string, (w: World, variant?: string) => Promise<Fixture>> = {
  person_id: person,
  visit_id: visit,
  visitor_id: visitor,
  whep_id: webhookEndpoint,
  evt_id: event,
  visit_type: visitType,
  ...BOOKING_BUILDERS,
  ...DESK_BUILDERS,
};

/**
 * Operations with a path id that need more than the default (the builder's default state; no body, or `{}` when
 * the operation takes a body with nothing required): a state, or a body. Bodies are valid, so A's own test key
 * succeeds with them (the test checks that too, last).
 */
export const OPERATIONS: Record<string, { variant?: string; body?: (w: World) => unknown }> = {
  'PATCH /people/{person_id}': { body: () => ({ name: 'Renamed by a stranger', job_title: 'Stranger' }) },
  'POST /people/{person_id}/reactivate': { variant: 'inactive' },
  'PATCH /visits/{visit_id}': { body: () => ({ purpose: 'Changed by a stranger' }) },
  'POST /visits/{visit_id}/approve': { variant: 'awaiting_approval', body: () => ({ reason: 'Stranger' }) },
  'POST /visits/{visit_id}/deny': { variant: 'awaiting_approval', body: () => ({ reason: 'Stranger' }) },
  'POST /visits/{visit_id}/check-out': { variant: 'checked_in' },
  'POST /visits/{visit_id}/cancel': { body: () => ({ reason: 'Cancelled by a stranger' }) },
  'POST /visits/{visit_id}/resend-pass': { body: () => ({ pass_channels: ['sms'] }) },
  'PATCH /webhook-endpoints/{whep_id}': {
    body: () => ({ description: 'Changed by a stranger', enabled_events: ['visit.created'] }),
  },
  'POST /webhook-endpoints/{whep_id}/test': { body: () => ({ type: 'visit.created' }) },
  'POST /test-helpers/bookings/{booking_id}/expire': { variant: 'pending' },
  ...BOOKING_OPERATIONS,
  ...DESK_OPERATIONS,
};

/**
 * Lists whose items have no route of their own under the same path (a list `/x` otherwise uses the builder of
 * `/x/{param}`): what to create in A's test mode, and how to recognise it.
 */
export const LIST_SOURCES: Record<string, (w: World) => Promise<Fixture['item']>> = {
  /** A's test-mode site (made with the organisation). */
  'GET /sites': async (w) => ({ field: 'id', value: w.aSite }),
  /** The test-mode audit event of A's test key's first use (an organisation-wide event would be A's in both modes). */
  'GET /audit-events': async (w) => {
    const events = await listAll(w, w.aTest, '/audit-events?action=api_key.used');
    const e = events.find((x) => x.livemode === false);
    if (!e) throw new Error(`fixture: no test-mode api_key.used audit event of ${w.a.id}`);
    return { field: 'id', value: e.id as string };
  },
  ...BOOKING_LIST_SOURCES,
};

/**
 * Filtered forms of a list, naming A's objects in the query (each must still list the fixture to A's test key,
 * and leave it out, or refuse the query, for the strangers).
 */
export const LIST_FILTERS: Record<string, (w: World) => string[]> = {
  'GET /visits': (w) => [`?site_id=${w.aSite}`, `?host_id=${w.aHost}`, '?status=expected'],
  'GET /people': () => ['?q=Adjoa'],
  'GET /events': () => ['?type=person.created'],
  'GET /audit-events': () => ['?action=api_key.used'],
  ...BOOKING_LIST_FILTERS,
  ...DESK_LIST_FILTERS,
};

/**
 * Creating operations (POST without a path id), by a body valid in one organisation's test mode (`org`: whose
 * sites and people it names). B's and A-live's request with A's body must be refused at `foreign` (the fields
 * naming A's objects; absent: the body names none), B's own create must not be visible to A (read back at
 * `read(id)`), and B reusing A's Idempotency-Key must create B's own object rather than replay A's.
 */
export const CREATES: Record<
  string,
  { body: (w: World, org: 'a' | 'b') => Json; read: (id: string) => string; foreign?: string[] }
> = {
  'POST /people': {
    body: (w, org) => ({
      name: `Kwame ${org}`,
      email: `kwame.${next()}@${org}.test`,
      site_ids: [org === 'a' ? w.aSite : w.bSite],
    }),
    read: (id) => `/v1/people/${id}`,
    foreign: ['body.site_ids.0'],
  },
  'POST /visits': {
    body: (w, org) => ({
      site_id: org === 'a' ? w.aSite : w.bSite,
      host_id: org === 'a' ? w.aHost : w.bHost,
      type: 'meeting',
      visitor: { name: `Yaw ${org}`, phone: newPhone() },
    }),
    read: (id) => `/v1/visits/${id}`,
    foreign: ['body.host_id', 'body.site_id'],
  },
  'POST /webhook-endpoints': {
    body: (w, org) => ({ url: w.receiver.url(`/ok/${org}-${next()}`), enabled_events: ['*'] }),
    read: (id) => `/v1/webhook-endpoints/${id}`,
  },
  ...BOOKING_CREATES,
  ...DESK_CREATES,
};

/**
 * Operations without an object of their own that answer for the credential's whole tenant, each with the reason
 * and its own check (returns the problems found).
 */
export const SINGLETONS: Record<string, { reason: string; check: (w: World) => Promise<string[]> }> = {
  'GET /openapi.json': {
    reason: 'the contract: the same public document for every caller, served without a credential',
    check: async (w) => {
      const res = await w.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      const problems: string[] = [];
      if (res.statusCode !== 200) problems.push(`answered ${res.statusCode} without a credential`);
      for (const id of [w.a.id, w.b.id, w.aSite, w.aHost])
        if (res.body.includes(id)) problems.push(`mentions ${id}`);
      return problems;
    },
  },
  'GET /organisation': {
    reason: "the credential's own organisation",
    check: async (w) => {
      const problems: string[] = [];
      for (const [who, key, id, livemode] of [
        ["B's test key", w.bTest, w.b.id, false],
        ["A's live key", w.aLive, w.a.id, true],
        ["A's test key", w.aTest, w.a.id, false],
      ] as const) {
        const org = await expectStatus(w, key, 'GET', '/v1/organisation', 200);
        if (org.id !== id || org.livemode !== livemode)
          problems.push(`${who} sees ${org.id} (livemode ${org.livemode}), not ${id} (livemode ${livemode})`);
      }
      return problems;
    },
  },
  'GET /forms': {
    reason: "the custom-field schemas of the credential's organisation and mode",
    check: async (w) => {
      const field = `tenancy_probe_${next()}`;
      await w.app.get(FormsService).publish({ organisationId: w.a.id, livemode: false }, 'visit', {
        type: 'object',
        properties: { [field]: { type: 'string' } },
        'x-svc-order': [field],
      });
      const problems: string[] = [];
      for (const [who, key, sees] of [
        ["A's test key", w.aTest, true],
        ["B's test key", w.bTest, false],
        ["A's live key", w.aLive, false],
      ] as const) {
        const forms = await expectStatus(w, key, 'GET', '/v1/forms', 200);
        if (JSON.stringify(forms).includes(field) !== sees)
          problems.push(
            `${who} ${sees ? 'does not see' : 'sees'} the field ${field} published in A's test mode`,
          );
      }
      return problems;
    },
  },
  'POST /test-helpers/sandbox/reset': {
    reason: "deletes the test-mode activity of the credential's own organisation only",
    check: async (w) => {
      const problems: string[] = [];
      const visitB = await expectStatus(w, w.bTest, 'POST', '/v1/visits', 201, {
        site_id: w.bSite,
        host_id: w.bHost,
        type: 'meeting',
        visitor: { name: 'Kojo Kept', phone: newPhone() },
      });
      const live = await call(w.app, 'POST', '/v1/test-helpers/sandbox/reset', { key: w.aLive, body: {} });
      if (live.statusCode !== 403) problems.push(`A's live key: ${live.statusCode}, not 403 forbidden`);
      await expectStatus(w, w.aTest, 'POST', '/v1/test-helpers/sandbox/reset', 200, {});
      const kept = await call(w.app, 'GET', `/v1/visits/${visitB.id}`, { key: w.bTest });
      if (kept.statusCode !== 200)
        problems.push(`A's reset removed B's visit ${visitB.id}: ${kept.statusCode}`);
      return problems;
    },
  },
  'POST /test-helpers/attendance/late-clock-in': {
    reason: "names a person in its body (no path id): the person is found in the caller's tenant only",
    check: async (w) => {
      const problems: string[] = [];
      const tenant = { organisationId: w.a.id, livemode: false };
      const person = await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, {
        name: 'Yaw Late',
        email: `yaw.${next()}@a.test`,
      });
      await w.app.get(AttendanceService).saveShift(tenant, null, {
        name: `Day ${next()}`,
        site_id: w.aSite,
        start_time: '00:00',
        end_time: '23:59',
        grace_minutes: 0,
        days_of_week: [1, 2, 3, 4, 5, 6, 7],
        person_ids: [person.id],
      });
      for (const [who, key, status] of [
        ["B's test key", w.bTest, 422],
        ["A's live key", w.aLive, 403],
      ] as const) {
        const res = await call(w.app, 'POST', '/v1/test-helpers/attendance/late-clock-in', {
          key,
          body: { person_id: person.id },
        });
        if (res.statusCode !== status) problems.push(`${who}: ${res.statusCode}, not ${status}`);
      }
      const events = await expectStatus(w, w.aTest, 'GET', '/v1/attendance/events?limit=100', 200);
      if (JSON.stringify(events).includes(person.id)) problems.push('a stranger recorded a clock-in for A');
      await expectStatus(w, w.aTest, 'POST', '/v1/test-helpers/attendance/late-clock-in', 200, {
        person_id: person.id,
      });
      return problems;
    },
  },
  ...BOOKING_SINGLETONS,
  ...STREAM_SINGLETONS,
};
