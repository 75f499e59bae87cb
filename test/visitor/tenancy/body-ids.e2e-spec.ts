import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call } from '../../support/platform-fixtures';
import { until } from '../../support/until';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { BUILDERS, CREATES, expectStatus, refResolver, twoOrganisations, World } from './tenancy-fixtures';
// after tenancy-fixtures, which spreads this module's tables (the two import each other)
import { bookingType } from './bookings.fixtures';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Ids in request bodies. Every property of a /v1 request body that names an object (`…_id`, `…_ids`, or a
 * prefixed-id pattern) is sent by organisation A's test key naming an object of organisation B (and, where A has
 * one, of A's live mode), on A's own object where the route has a path id: the answer is 422 validation_failed at
 * that field (or 404 not_found), and nothing is written. Properties the creates of tenancy.e2e-spec.ts already
 * probe (CREATES[…].foreign) are left to it; any other property without an entry here fails, named.
 */

const FILE = 'test/visitor/tenancy/body-ids.e2e-spec.ts';

interface Probe {
  /** The path parameter's builder (BUILDERS) when the route has one, and its variant. */
  variant?: string;
  /** Objects of another tenant to name, by who owns them. */
  foreign: (w: Others) => [string, string][];
  /**
   * A body valid for A's test key but for the field under test, which names `id` (`object`: A's object of the path
   * id as A's test key reads it).
   */
  body: (w: Others, id: string, object: Json) => Json;
  /** A's own test-mode object for the field: the same request with it goes through (so the refusal was the tenancy's). */
  own?: (w: Others, object: Json) => string;
  /** The spec answers 404 not_found here rather than 422 at the field. */
  notFound?: boolean;
}

interface Others extends World {
  bVisit: string;
  bVisitor: string;
  bFile: string;
  bEndpoint: string;
  bBookingType: string;
  aLiveSite: string;
  aLiveHost: string;
  bGate: string;
  aGate: string;
  aLiveVisit: string;
  aVisit: string;
  aBookingType: string;
}

let seq = 0;
const next = () => ++seq;
const newPhone = () => `+23324${String(5000000 + next()).padStart(7, '0')}`;
const people = (w: Others): [string, string][] => [
  ["org B's person", w.bHost],
  ["A's live-mode person", w.aLiveHost],
];
const sites = (w: Others): [string, string][] => [
  ["org B's site", w.bSite],
  ["A's live-mode site", w.aLiveSite],
];

/** `METHOD /path property` → how to probe it. */
const PROBES: Record<string, Probe> = {
  // the helper needs a person with a shift, which A's host has not: no `own` request (its refusals are the
  // tenancy's: the person is looked up in A's test mode only)
  'POST /test-helpers/attendance/late-clock-in person_id': {
    foreign: people,
    body: (_w, id) => ({ person_id: id }),
  },
  'PATCH /visits/{visit_id} host_id': {
    foreign: people,
    own: (w) => w.aHost,
    body: (_w, id) => ({ host_id: id }),
  },
  'PATCH /visits/{visit_id} site_id': {
    foreign: sites,
    own: (w) => w.aSite,
    body: (_w, id) => ({ site_id: id }),
  },
  'POST /visits gate_id': {
    foreign: (w) => [["org B's gate", w.bGate]],
    own: (w) => w.aGate,
    body: (w, id) => ({
      site_id: w.aSite,
      host_id: w.aHost,
      gate_id: id,
      type: 'meeting',
      visitor: { name: 'Adwoa Gate', phone: newPhone() },
    }),
  },
  'PATCH /visits/{visit_id} gate_id': {
    foreign: (w) => [["org B's gate", w.bGate]],
    own: (w) => w.aGate,
    body: (_w, id) => ({ gate_id: id }),
  },
  'POST /bookings host_id': {
    foreign: people,
    own: (w) => w.aHost,
    body: (w, id) => ({
      booking_type_id: w.aBookingType,
      start: new Date(
        Math.ceil(Date.now() / 1_800_000) * 1_800_000 + 3 * 86_400_000 + next() * 1_800_000,
      ).toISOString(),
      attendee: { name: 'Esi Host', phone: newPhone() },
      host_id: id,
    }),
  },
  'PATCH /people/{person_id} site_ids': {
    foreign: sites,
    own: (w) => w.aSite,
    body: (_w, id) => ({ site_ids: [id] }),
  },
  'POST /files visit_id': {
    foreign: (w) => [
      ["org B's visit", w.bVisit],
      ["A's live-mode visit", w.aLiveVisit],
    ],
    own: (w) => w.aVisit,
    body: (_w, id) => ({ purpose: 'visitor_photo', content_type: 'image/png', size: 10, visit_id: id }),
  },
  'POST /deliveries/{delivery_id}/collect collected_by': {
    foreign: people,
    own: (w) => w.aHost,
    body: (_w, id) => ({ collected_by: id }),
  },
  'POST /deliveries/{delivery_id}/collect signature_file_id': {
    foreign: (w) => [["org B's file", w.bFile]],
    body: (_w, id) => ({ signature_file_id: id }),
  },
  'POST /deliveries/{delivery_id}/collect photo_file_id': {
    foreign: (w) => [["org B's file", w.bFile]],
    body: (_w, id) => ({ photo_file_id: id }),
  },
  'POST /deliveries photo_file_id': {
    foreign: (w) => [["org B's file", w.bFile]],
    body: (w, id) => ({ site_id: w.aSite, recipient_id: w.aHost, description: 'Parcel', photo_file_id: id }),
  },
  'POST /deliveries received_by': {
    foreign: people,
    own: (w) => w.aHost,
    body: (w, id) => ({ site_id: w.aSite, recipient_id: w.aHost, description: 'Parcel', received_by: id }),
  },
  'POST /rollcalls started_by': {
    foreign: people,
    own: (w) => w.aHost,
    body: (w, id) => ({ site_id: w.aApprovalSite, started_by: id }),
  },
  'POST /rollcalls/{rollcall_id}/marks marked_by': {
    foreign: people,
    own: (w) => w.aHost,
    body: (_w, id, rollcall) => ({
      subject_id: rollcall.people[0].subject_id,
      status: 'safe',
      marked_by: id,
    }),
  },
  'POST /rollcalls/{rollcall_id}/close closed_by': {
    foreign: people,
    own: (w) => w.aHost,
    body: (_w, id) => ({ closed_by: id }),
  },
  'POST /rollcalls/{rollcall_id}/marks subject_id': {
    foreign: (w) => [["org B's visitor", w.bVisitor]],
    own: (_w, rollcall) => rollcall.people[0].subject_id,
    body: (_w, id) => ({ subject_id: id, status: 'safe' }),
  },
  'POST /events/{evt_id}/redeliver endpoint_id': {
    foreign: (w) => [["org B's endpoint", w.bEndpoint]],
    body: (_w, id) => ({ endpoint_id: id }),
  },
};

/** Properties named like ids that name no object of the API, each with the reason. */
const NOT_OBJECTS: Record<string, string> = {
  'POST /attendance/events device_id': "the clocking terminal's own label (free text, stored as given)",
};

describe('tenancy of ids in request bodies', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  const w = {} as Others;

  beforeAll(async () => {
    w.receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: { RUN_WORKER: 'false', WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', TEST_MODE_RATE_PER_MINUTE: '100000' },
    });
    w.app = t.app;
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    await twoOrganisations(w);
    w.aLiveSite = w.a.sites.find((s) => s.livemode)!.id;
    const person = async (key: string, name: string) =>
      (await expectStatus(w, key, 'POST', '/v1/people', 201, { name, email: `p${next()}@writes.test` }))
        .id as string;
    w.aHost = await person(w.aTest, 'Ama A');
    w.aLiveHost = await person(w.aLive, 'Ama Live');
    w.bHost = await person(w.bTest, 'Kojo B');
    const bVisit = await expectStatus(w, w.bTest, 'POST', '/v1/visits', 201, {
      site_id: w.bSite,
      host_id: w.bHost,
      type: 'meeting',
      visitor: { name: 'Yaw B', phone: newPhone() },
    });
    w.bVisit = bVisit.id;
    w.bVisitor = bVisit.visitor.id;
    w.bFile = (
      await expectStatus(w, w.bTest, 'POST', '/v1/files', 201, {
        purpose: 'delivery_photo',
        content_type: 'image/png',
        size: 10,
      })
    ).id;
    w.aGate = (await pg.query(`SELECT id FROM visitor.gate WHERE site_id = $1`, [w.aSite])).rows[0].id;
    w.aVisit = (
      await expectStatus(w, w.aTest, 'POST', '/v1/visits', 201, {
        site_id: w.aSite,
        host_id: w.aHost,
        type: 'meeting',
        visitor: { name: 'Ama Visit', phone: newPhone() },
      })
    ).id;
    w.aLiveVisit = (
      await expectStatus(w, w.aLive, 'POST', '/v1/visits', 201, {
        site_id: w.aLiveSite,
        host_id: w.aLiveHost,
        type: 'meeting',
        visitor: { name: 'Ama Live Visit', phone: newPhone() },
      })
    ).id;
    w.bGate = (await pg.query(`SELECT id FROM visitor.gate WHERE site_id = $1`, [w.bSite])).rows[0].id;
    w.aBookingType = await bookingType(w, 'a');
    w.bEndpoint = (
      await expectStatus(w, w.bTest, 'POST', '/v1/webhook-endpoints', 201, {
        url: w.receiver.url('/ok/b'),
        enabled_events: ['*'],
      })
    ).id;
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    await t?.close();
    await w.receiver?.stop();
  });

  /** Every body property of the contract that names an object: `METHOD /path property`. */
  function idProperties(): string[] {
    const doc = contract.doc as Json;
    const resolve = refResolver(doc);
    const names = (schema: Json | undefined): Json => {
      const s = resolve(schema) ?? {};
      return Object.assign({}, s.properties, ...((s.allOf as Json[]) ?? []).map((x) => names(x)));
    };
    const out: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [m, op] of Object.entries(item as Json)) {
        const body = resolve(resolve(op.requestBody)?.content?.['application/json']?.schema);
        if (!body) continue;
        for (const [prop, raw] of Object.entries(names(body))) {
          const s = resolve(raw as Json) ?? {};
          // by its name, or by its description naming an id's prefix (`person_…`)
          if (/_ids?$/.test(prop) || /`[a-z]+_…`/.test(String(s.description ?? '')))
            out.push(`${m.toUpperCase()} ${path} ${prop}`);
        }
      }
    return out;
  }

  /** Rows of every visitor table but the request's own bookkeeping (the key's use, idempotency, audit). */
  async function snapshot(): Promise<string> {
    const { rows: tables } = await pg.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'visitor' AND table_name NOT IN ('api_key', 'idempotency_key', 'audit_event')
        ORDER BY 1`,
    );
    const parts: string[] = [];
    for (const { name } of tables) {
      const { rows } = await pg.query<{ r: string }>(
        `SELECT to_jsonb(x)::text AS r FROM visitor."${name}" x ORDER BY 1`,
      );
      parts.push(`${name}: ${rows.map((r) => r.r).join('\n')}`);
    }
    return parts.join('\n');
  }

  async function settled(): Promise<string> {
    let last = await snapshot();
    return until(async () => {
      await new Promise((r) => setTimeout(r, 150));
      const now = await snapshot();
      const same = now === last;
      last = now;
      return same && now;
    }, 20_000);
  }

  it('every body property naming an object has a probe here (or in CREATES), and every probe a property', () => {
    const props = idProperties();
    expect(props.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const p of props) {
      const [method, path, prop] = p.split(' ');
      if (
        PROBES[p] ||
        NOT_OBJECTS[p] ||
        CREATES[`${method} ${path}`]?.foreign?.some((f) => f.split('.')[1] === prop)
      )
        continue;
      problems.push(`${p}: names an object but has no entry in PROBES (${FILE})`);
    }
    for (const p of Object.keys(PROBES))
      if (!props.includes(p)) problems.push(`${p}: in PROBES but not a body property of the contract`);
    expect(problems).toEqual([]);
  });

  it("A's test key naming another tenant's object in a body is refused at the field, and nothing is written", async () => {
    const problems: string[] = [];
    for (const [name, probe] of Object.entries(PROBES)) {
      const [method, path, prop] = name.split(' ');
      const param = /\{([^}]+)\}/.exec(path)?.[1];
      let url = `/v1${path}`;
      let object: Json = {};
      if (param) {
        const f = await BUILDERS[param](w, probe.variant);
        url = `/v1${path.replace(`{${param}}`, f.params[param])}`;
        object = await expectStatus(w, w.aTest, 'GET', f.read, 200);
      }
      for (const [who, id] of probe.foreign(w)) {
        const before = await settled();
        const res = await call(w.app, method as 'POST', url, {
          key: w.aTest,
          body: probe.body(w, id, object),
        });
        const body = res.body ? res.json() : {};
        const at = ((body.errors ?? []) as Json[]).map((e) => e.location as string);
        const refusedAtField =
          res.statusCode === 422 &&
          body.code === 'validation_failed' &&
          at.some((l) => l === `body.${prop}` || l.startsWith(`body.${prop}.`));
        const notFound = !!probe.notFound && res.statusCode === 404 && body.code === 'not_found';
        if (!refusedAtField && !notFound)
          problems.push(`${name} naming ${who}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        else contract.expectValid(res, method, url);
        const after = await settled();
        if (after !== before)
          problems.push(`${name} naming ${who}: the refused request wrote to the database`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
