import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { Contract } from '../../support/openapi-contract';
import { call } from '../../support/platform-fixtures';
import { WebhookReceiver } from '../../support/webhook-receiver';
import {
  BUILDERS,
  CREATES,
  expectStatus,
  twoOrganisations,
  Fixture,
  LIST_FILTERS,
  LIST_SOURCES,
  listAll,
  OPERATIONS,
  refResolver,
  SINGLETONS,
  World,
} from './tenancy-fixtures';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Kind = 'path-id' | 'list' | 'create' | 'singleton';

interface Operation {
  /** `METHOD /path` as the contract names it (path without the /v1 prefix). */
  name: string;
  method: Method;
  path: string;
  pathParams: string[];
  /** Required properties of the JSON body (null: the operation takes no body). */
  bodyRequired: string[] | null;
  kind: Kind | null;
}

const FIXTURES = 'test/visitor/tenancy/tenancy-fixtures.ts';

/** Every operation of the served contract, each with the way the test proves it keeps to its tenant. */
function operationsOf(doc: Json): Operation[] {
  const resolve = refResolver(doc);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const [m, op] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(m)) continue;
      const method = m.toUpperCase() as Method;
      const name = `${method} ${path}`;
      // from the template itself: a parameter the contract forgot to declare still needs a fixture
      const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]);
      const bodySchema = resolve(resolve(op.requestBody)?.content?.['application/json']?.schema);
      const ok = resolve(op.responses?.['200']?.content?.['application/json']?.schema);
      const isPage = ok?.type === 'object' && ok.properties?.data && ok.properties?.has_more;
      const kind: Kind | null = SINGLETONS[name]
        ? 'singleton'
        : pathParams.length
          ? 'path-id'
          : method === 'GET' && isPage
            ? 'list'
            : CREATES[name]
              ? 'create'
              : null;
      ops.push({
        name,
        method,
        path,
        pathParams,
        bodyRequired: bodySchema ? ((bodySchema.required as string[]) ?? []) : null,
        kind,
      });
    }
  return ops;
}

const codeOf = (res: { body: string }): string | undefined => {
  try {
    return JSON.parse(res.body).code;
  } catch {
    return undefined;
  }
};

/**
 * Tenancy, route by route: every /v1 operation of the served contract, with an object made in organisation A's
 * test mode, called with organisation B's key and with A's live key, answers 404 not_found and changes nothing;
 * every list leaves the object out. An operation the tables cannot cover fails, named.
 */
describe('tenancy: every /v1 operation keeps to its organisation and mode', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let ops: Operation[];
  const w = {} as World;
  const strangers = (): [string, string][] => [
    ["org B's test key", w.bTest],
    ["org A's live key", w.aLive],
  ];

  beforeAll(async () => {
    w.receiver = await new WebhookReceiver().start();
    t = await bootTestApp({
      env: {
        RUN_WORKER: 'false',
        WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        // hundreds of test-mode requests a minute from one organisation: the allowance is not under test here
        TEST_MODE_RATE_PER_MINUTE: '100000',
      },
    });
    w.app = t.app;
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
    ops = operationsOf(contract.doc as Json);

    // A: live access to the whole REST API (Pro); B: every route (test mode gives every route on every plan).
    await twoOrganisations(w);
    await pg.query(`UPDATE visitor.site SET requires_host_approval = true WHERE id = $1`, [w.aApprovalSite]);
    w.aHost = (
      await expectStatus(w, w.aTest, 'POST', '/v1/people', 201, { name: 'Ama A', email: 'ama@a.test' })
    ).id;
    w.bHost = (
      await expectStatus(w, w.bTest, 'POST', '/v1/people', 201, { name: 'Kojo B', email: 'kojo@b.test' })
    ).id;
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
    await w.receiver?.stop();
  });

  it('every operation of the served contract is covered: a path id, a list, a create or a listed singleton', () => {
    expect(ops.length).toBeGreaterThan(30);
    const uncovered = ops
      .filter((o) => o.kind === null)
      .map(
        (o) =>
          `${o.name}: no way to prove its tenancy (not a path-id operation, a list, a CREATES entry or a SINGLETONS entry in ${FIXTURES})`,
      );
    expect(uncovered).toEqual([]);
  });

  /** What a stranger's request could have changed: the object as A's test key reads it, events, webhook sends. */
  async function snapshot(f: Fixture) {
    const read = await call(w.app, 'GET', f.read, { key: w.aTest });
    const heads: Record<string, string[]> = {};
    for (const [who, key] of [...strangers(), ["org A's test key", w.aTest]]) {
      const page = await expectStatus(w, key, 'GET', '/v1/events?limit=10', 200);
      heads[`events seen by ${who}`] = (page.data as Json[]).map((e) => `${e.type} ${e.id}`);
    }
    return {
      object: { status: read.statusCode, body: read.body ? read.json() : null },
      ...heads,
      webhookSends: w.receiver.received.length,
    };
  }

  async function probe(op: Operation): Promise<string[]> {
    if (op.pathParams.length !== 1)
      return [`${op.name}: ${op.pathParams.length} path parameters; add a builder for it to ${FIXTURES}`];
    const param = op.pathParams[0];
    const build = BUILDERS[param];
    if (!build) return [`${op.name}: no fixture builder for {${param}} in BUILDERS (${FIXTURES})`];
    const entry = OPERATIONS[op.name] ?? {};
    let body: unknown;
    if (entry.body) body = entry.body(w);
    else if (op.bodyRequired?.length)
      return [
        `${op.name}: its body requires ${op.bodyRequired.join(', ')}; give it a body in OPERATIONS (${FIXTURES})`,
      ];
    else if (op.bodyRequired) body = {};

    const f = await build(w, entry.variant);
    const url = `/v1${op.path.replace(/\{([^}]+)\}/g, (_, p: string) => f.params[p])}`;
    const problems: string[] = [];
    const before = await snapshot(f);
    if (before.object.status !== 200)
      problems.push(`${op.name}: A's test key cannot read its fixture at ${f.read}`);
    for (const [who, key] of strangers()) {
      const res = await call(w.app, op.method, url, { key, body });
      // a test helper refuses every live-mode credential before it looks anything up (docs/decisions.md)
      const [status, code] =
        op.path.startsWith('/test-helpers/') && key === w.aLive ? [403, 'forbidden'] : [404, 'not_found'];
      if (res.statusCode !== status || codeOf(res) !== code) {
        problems.push(
          `${op.name} with ${who} on A's test-mode ${param} ${f.params[param]}: ${res.statusCode} ${codeOf(res) ?? ''} instead of ${status} ${code}`,
        );
        continue;
      }
      try {
        contract.expectValid(res, op.method, url);
      } catch (e) {
        problems.push(`${op.name} with ${who}: ${(e as Error).message}`);
      }
    }
    const after = await snapshot(f);
    try {
      expect(after).toEqual(before);
    } catch (e) {
      problems.push(`${op.name}: strangers' calls changed what the tenants see:\n${(e as Error).message}`);
    }
    // The fixture fits the operation: the owner's own call goes through, so the 404s above were the tenancy's.
    const own = await call(w.app, op.method, url, { key: w.aTest, body });
    if (own.statusCode >= 300)
      problems.push(
        `${op.name}: A's own test key answered ${own.statusCode} ${own.body}; fix the fixture or body in ${FIXTURES}`,
      );
    return problems;
  }

  it('every operation with a path id answers 404 not_found to org B and to A in live mode, and changes nothing', async () => {
    const probed = ops.filter((o) => o.kind === 'path-id');
    expect(probed.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const op of probed) problems.push(...(await probe(op)));
    expect(problems).toEqual([]);
  }, 180_000);

  /** Whether the list at `path` shows the item to `key`; a refused query (4xx) shows nothing. */
  async function shows(key: string, path: string, item: Fixture['item']): Promise<boolean> {
    const first = await call(w.app, 'GET', `/v1${path}`, { key });
    if (first.statusCode >= 400 && first.statusCode < 500) return false;
    return (await listAll(w, key, path)).some((x) => String(x[item.field]) === item.value);
  }

  it("every list leaves A's test-mode object out for org B and for A in live mode", async () => {
    const lists = ops.filter((o) => o.kind === 'list');
    expect(lists.length).toBeGreaterThanOrEqual(7);
    const problems: string[] = [];
    for (const op of lists) {
      let item: Fixture['item'];
      const source = LIST_SOURCES[op.name];
      if (source) item = await source(w);
      else {
        const detail = ops.find(
          (o) =>
            o.method === 'GET' && o.pathParams.length === 1 && o.path === `${op.path}/{${o.pathParams[0]}}`,
        );
        const build = detail && BUILDERS[detail.pathParams[0]];
        if (!build) {
          problems.push(`${op.name}: no detail route with a builder and no LIST_SOURCES entry (${FIXTURES})`);
          continue;
        }
        item = (await build(w)).item;
      }
      for (const query of ['', ...(LIST_FILTERS[op.name]?.(w) ?? [])]) {
        const path = `${op.path}${query}`;
        if (!(await shows(w.aTest, path, item)))
          problems.push(`GET ${path}: A's test key does not list ${item.value} (fixture)`);
        for (const [who, key] of strangers())
          if (await shows(key, path, item))
            problems.push(`GET ${path} with ${who} lists A's test-mode ${item.field} ${item.value}`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it("creating refuses A's objects named in B's body (and in A's live body), and what B creates stays B's", async () => {
    const problems: string[] = [];
    for (const op of ops.filter((o) => o.kind === 'create')) {
      const entry = CREATES[op.name];
      const url = `/v1${op.path}`;
      if (entry.foreign)
        for (const [who, key] of strangers()) {
          const res = await call(w.app, op.method, url, { key, body: entry.body(w, 'a') });
          const locations =
            res.statusCode === 422
              ? ((res.json().errors ?? []) as Json[]).map((e) => e.location as string).sort()
              : [];
          if (res.statusCode !== 422 || codeOf(res) !== 'validation_failed')
            problems.push(`${op.name} with ${who} naming A's test-mode objects: ${res.statusCode}, not 422`);
          else if (JSON.stringify(locations) !== JSON.stringify([...entry.foreign].sort()))
            problems.push(`${op.name} with ${who}: refused at ${locations.join(', ')}, not ${entry.foreign}`);
        }
      // B reuses the Idempotency-Key A just used: B gets an object of its own, not A's response
      const idempotencyKey = randomUUID();
      const mine = await call(w.app, op.method, url, {
        key: w.aTest,
        body: entry.body(w, 'a'),
        idempotencyKey,
      });
      const theirs = await call(w.app, op.method, url, {
        key: w.bTest,
        body: entry.body(w, 'b'),
        idempotencyKey,
      });
      if (mine.statusCode !== 201 || theirs.statusCode !== 201) {
        problems.push(
          `${op.name}: A's and then B's create with one Idempotency-Key answered ${mine.statusCode} and ${theirs.statusCode} ${theirs.body}`,
        );
        continue;
      }
      if (theirs.json().id === mine.json().id)
        problems.push(`${op.name}: B reusing A's Idempotency-Key got A's response (${mine.json().id})`);
      const read = entry.read(theirs.json().id);
      for (const [who, key, status] of [
        ["org A's test key", w.aTest, 404],
        ["org A's live key", w.aLive, 404],
        ["org B's test key", w.bTest, 200],
      ] as const) {
        const res = await call(w.app, 'GET', read, { key });
        if (res.statusCode !== status)
          problems.push(
            `${op.name}: ${who} reading B's new object at ${read}: ${res.statusCode}, not ${status}`,
          );
      }
    }
    expect(problems).toEqual([]);
  });

  it('each tenant-wide singleton answers for the caller only', async () => {
    const problems: string[] = [];
    for (const op of ops.filter((o) => o.kind === 'singleton'))
      problems.push(...(await SINGLETONS[op.name].check(w)).map((p) => `${op.name}: ${p}`));
    // a singleton dropped from the contract is dropped from the allow-list too
    for (const name of Object.keys(SINGLETONS))
      if (!ops.some((o) => o.name === name)) problems.push(`${name}: in SINGLETONS but not in the contract`);
    expect(problems).toEqual([]);
  });
});
