import { bootTestApp, TestApp } from '../harness';
import { Contract } from '../support/openapi-contract';
import { call, createOrg } from '../support/platform-fixtures';
import { visitorCodeInfo, VisitorErrorCode } from '../../src/common/errors/error-codes';

type Json = Record<string, unknown>;
type Op = Json & {
  summary?: string;
  description?: string;
  operationId: string;
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: unknown;
  responses: Record<string, Json>;
};
type Doc = Json & { paths: Record<string, Record<string, Op>>; components: Json };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The /v1 reference as a reader meets it: error codes per operation, short summaries, realistic examples. */
describe('/v1 reference: errors, summaries, examples', () => {
  let t: TestApp;
  let doc: Doc;
  let pub: Doc;
  beforeAll(async () => {
    t = await bootTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    pub = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
  });
  afterAll(() => t?.close());

  const ops = (d: Doc) =>
    Object.entries(d.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
  /** A response, through its `$ref` to `#/components/responses/…`. */
  const resolve = (r: Json): Json =>
    typeof r.$ref === 'string'
      ? ((doc.components.responses as Record<string, Json>)[r.$ref.split('/').pop()!] ?? {})
      : r;
  /** status → the codes an operation documents for it (from the `code` enum), and its examples' codes. */
  const errorsOf = (op: Op) => {
    const out: Record<string, { codes: string[]; examples: Json[] }> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      if (/^[23]/.test(status)) continue;
      const media = (resolve(r).content as Record<string, Json>)['application/problem+json'];
      const schema = media.schema as { allOf: Json[] };
      const codes = (schema.allOf[1].properties as { code: { enum: string[] } }).code.enum;
      const examples = Object.values(media.examples as Record<string, { value: Json }>).map((e) => e.value);
      out[status] = { codes, examples };
    }
    return out;
  };

  it('every /v1 operation lists the error statuses and codes it can answer, each with an example, and no default', () => {
    const wrong: string[] = [];
    for (const { path, method, op } of ops(doc)) {
      const at = `${method.toUpperCase()} ${path}`;
      if (op.responses.default) wrong.push(`${at}: default`);
      const errors = errorsOf(op);
      const codes = Object.values(errors).flatMap((e) => e.codes);
      for (const [status, e] of Object.entries(errors)) {
        for (const c of e.codes)
          if (String(visitorCodeInfo(c as VisitorErrorCode).status) !== status)
            wrong.push(`${at}: ${c} under ${status}`);
        // one example per code, whose code and status are the response's
        expect({ at, status, examples: e.examples.map((x) => [x.code, x.status]) }).toEqual({
          at,
          status,
          examples: e.codes.map((c) => [c, Number(status)]),
        });
      }
      const credentialed = typeof op['x-required-scope'] === 'string';
      const expected: string[] = ['bad_request', 'validation_failed', 'internal_error', 'unavailable'];
      if (credentialed) expected.push('unauthorized', 'scope_missing', 'forbidden', 'rate_limited');
      if (path.includes('{')) expected.push('not_found');
      if (credentialed && method === 'post') expected.push('conflict', 'idempotency_key_reused');
      for (const c of expected) if (!codes.includes(c)) wrong.push(`${at}: lacks ${c}`);
      if (!credentialed && path === '/openapi.json' && codes.includes('unauthorized'))
        wrong.push(`${at}: needs no credential, yet documents unauthorized`);
    }
    expect(wrong).toEqual([]);
    // the codes only some handlers throw are listed where they do, and not elsewhere
    const codesAt = (method: string, path: string) =>
      Object.values(errorsOf(doc.paths[path][method])).flatMap((e) => e.codes);
    expect(codesAt('post', '/visits/{visit_id}/check-in')).toContain('invalid_state');
    expect(codesAt('post', '/rollcalls')).toContain('conflict');
    expect(codesAt('post', '/attendance/events')).toContain('consent_required');
    expect(codesAt('get', '/visits/{visit_id}')).not.toContain('invalid_state');
    expect(codesAt('get', '/visits')).not.toContain('not_found');
    // a route open to a lapsed webhooks plan does not claim plan_required; its PATCH, which refuses, does
    expect(codesAt('get', '/webhook-endpoints')).not.toContain('plan_required');
    expect(codesAt('patch', '/webhook-endpoints/{whep_id}')).toContain('plan_required');
    // the builder's own extensions do not leak into the document
    expect(JSON.stringify(doc)).not.toMatch(/"x-(error-codes|example|when-plan-lapsed|no-credential)"/);
  });

  it('the contract checker refuses an answer whose status or code the operation does not document', async () => {
    const contract = new Contract(doc as never);
    const problem = (status: number, code: string) => ({
      statusCode: status,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({
        type: 'https://x/docs/errors#x',
        title: 'x',
        status,
        detail: 'x',
        instance: '/v1/visits',
        code,
        request_id: 'req_x',
        errors: [],
      }),
      json() {
        return JSON.parse(this.body) as unknown;
      },
    });
    expect(() => contract.expectValid(problem(404, 'not_found'), 'GET', '/v1/visits/visit_1')).not.toThrow();
    // GET /visits has no id: 404 is not one of its statuses
    expect(() => contract.expectValid(problem(404, 'not_found'), 'GET', '/v1/visits')).toThrow(
      /does not document status 404/,
    );
    // 409 invalid_state is not an answer of GET /visits/{id}; conflict is not one of check-out's 422 codes
    expect(() => contract.expectValid(problem(409, 'invalid_state'), 'GET', '/v1/visits/visit_1')).toThrow(
      /status 409/,
    );
    expect(() =>
      contract.expectValid(problem(422, 'location_check_failed'), 'POST', '/v1/visits/visit_1/check-out'),
    ).toThrow(/does not match the contract/);
    // and a real refusal passes through it (call() checks every /v1 answer)
    const org = await createOrg(t.app);
    const res = await call(t.app, 'POST', '/v1/visits/visit_0000000000000000000000/check-out', {
      key: await org.key(),
    });
    expect(res.json()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it.each([
    ['/v1', () => doc],
    ['/public/v1', () => pub],
  ])('every %s operation has a summary of at most 60 characters', (_p, d) => {
    const long = ops(d())
      .filter(({ op }) => !op.summary || op.summary.length > 60)
      .map(
        ({ method, path, op }) => `${method} ${path}: ${op.summary?.length ?? 'none'} "${op.summary ?? ''}"`,
      );
    expect(long).toEqual([]);
  });

  it('summaries are titles, with the detail in the description', () => {
    const visits = doc.paths['/visits/{visit_id}/check-in'].post;
    expect(visits.summary).toBe('Check in a visit');
    expect(visits.description).toContain('awaiting_approval');
    expect(doc.paths['/events/{evt_id}/redeliver'].post.description).toMatch(/^Replays a stored event/);
    expect(doc.paths['/events/{evt_id}/redeliver'].post.description).toContain('`["*"]` does not cover');
  });

  it('examples show what the operation answers: a check-in is checked_in, a POST sends a UUID Idempotency-Key', () => {
    const example = (method: string, path: string, status: string) =>
      ((doc.paths[path][method].responses[status].content as Record<string, Json>)['application/json']
        .example ?? null) as Json | null;
    expect(example('post', '/visits/{visit_id}/check-in', '200')).toMatchObject({ status: 'checked_in' });
    expect(example('post', '/visits/{visit_id}/check-in', '200')?.checked_in_at).toMatch(/^2026-/);
    expect(example('post', '/visits/{visit_id}/check-out', '200')).toMatchObject({ status: 'checked_out' });
    // whole ids of the right kind, not `visit_3kT9…` or "string"
    expect(example('post', '/visits/{visit_id}/check-in', '200')).toMatchObject({
      id: expect.stringMatching(/^visit_[0-9A-Za-z]{22}$/),
      site_id: expect.stringMatching(/^site_[0-9A-Za-z]{22}$/),
      host_id: expect.stringMatching(/^person_[0-9A-Za-z]{22}$/),
      visitor: { id: expect.stringMatching(/^visitor_[0-9A-Za-z]{22}$/), name: 'Kofi Boateng' },
    });
    expect(example('post', '/visits/{visit_id}/cancel', '200')).toMatchObject({ status: 'cancelled' });
    expect(example('post', '/bookings/{booking_id}/confirm', '200')).toMatchObject({ status: 'confirmed' });
    const keys = ops(doc)
      .flatMap(({ op }) => op.parameters ?? [])
      .filter((p) => p.name === 'Idempotency-Key');
    expect(keys.length).toBeGreaterThan(30);
    for (const k of keys) expect(String(k.example)).toMatch(UUID);
  });

  /** Every string inside an `example` or `examples` value of a document, with where it is. */
  const exampleStrings = (d: unknown): { at: string; value: string }[] => {
    const found: { at: string; value: string }[] = [];
    const walk = (v: unknown, at: string, inExample: boolean): void => {
      if (typeof v === 'string' && inExample) found.push({ at, value: v });
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`, inExample));
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v))
          walk(x, `${at}/${k}`, inExample || k === 'example' || k === 'examples');
    };
    walk(d, '', false);
    return found;
  };

  it.each([
    ['/v1/openapi.json', () => doc],
    ['/public/v1/openapi.json', () => pub],
  ])('no example in %s is elided with …: every id, secret and path is whole', (_p, d) => {
    const strings = exampleStrings(d());
    expect(strings.length).toBeGreaterThan(20);
    expect(strings.filter((s) => s.value.includes('…'))).toEqual([]);
  });

  it('the reference page renders the error examples and summaries (Scalar gets the same document)', async () => {
    const shown = (await t.app.inject({ method: 'GET', url: '/docs/visitor/openapi.json' })).json() as Doc;
    const op = shown.paths['/visits/{visit_id}/check-in'].post;
    expect(Object.keys(op.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(shown.components.responses as Json).length).toBeGreaterThan(5);
  });
});
