import { randomUUID } from 'node:crypto';
import { bootTestApp, TestApp } from '../harness';
import { createOrg } from '../support/platform-fixtures';

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors: { location: string; message: string }[];
}

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** JSON bodies: nesting capped at parse time (JSON_MAX_DEPTH), invalid UTF-8 refused instead of replaced. */
describe('JSON bodies: nesting depth and UTF-8', () => {
  let t: TestApp;
  let key: string;
  let writes: { method: 'POST' | 'PATCH'; url: string }[];

  beforeAll(async () => {
    t = await bootTestApp();
    key = await (await createOrg(t.app)).key();
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    writes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      (['post', 'patch'] as const)
        .filter((m) => ops[m])
        .map((m) => ({
          method: m.toUpperCase() as 'POST' | 'PATCH',
          url: `/v1${path.replace(/\{[^}]+\}/g, 'x_unknown')}`,
        })),
    );
  });
  afterAll(() => t?.close());

  const send = (method: string, url: string, payload: string | Buffer) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      payload,
    });

  it('a body nested 5,000 levels is bad_request naming the limit on every /v1 POST and PATCH route', async () => {
    expect(writes.length).toBeGreaterThanOrEqual(15);
    const body = nested(5000);
    for (const { method, url } of writes) {
      const res = await send(method, url, body);
      expect({ route: `${method} ${url}`, status: res.statusCode }).toEqual({
        route: `${method} ${url}`,
        status: 400,
      });
      const problem = res.json() as Problem;
      expect(problem.code).toBe('bad_request');
      expect(problem.detail).toBe('The body nests arrays and objects deeper than 64 levels.');
      expect(problem.errors).toEqual([{ location: 'body', message: 'must not nest deeper than 64 levels' }]);
    }
  });

  it('arrays count as levels too, and strings holding brackets do not', async () => {
    const arrays = await send('POST', '/v1/people', `{"name":${'['.repeat(70)}${']'.repeat(70)}}`);
    expect(arrays.statusCode).toBe(400);
    const text = await send('POST', '/v1/people', JSON.stringify({ name: '{['.repeat(200), email: 'x' }));
    expect(text.statusCode).toBe(422); // judged by the validation rules, not by the depth limit
  });

  it('a body exactly at the limit reaches validation', async () => {
    const res = await send('POST', '/v1/people', `{"name":"Ama","extra":${nested(63)}}`);
    expect(res.statusCode).toBe(422);
    expect((res.json() as Problem).code).toBe('validation_failed');
  });

  it('invalid UTF-8 is bad_request, not stored as U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"name":"Ama '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","email":"utf8@corp.test"}'),
    ]);
    const res = await send('POST', '/v1/people', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      errors: [{ location: 'body', message: 'must be UTF-8' }],
    });
    const list = await t.app.inject({
      method: 'GET',
      url: '/v1/people?limit=100',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(JSON.stringify(list.json())).not.toContain('\ufffd');
    // Well-formed UTF-8 beyond ASCII is accepted as before.
    const fine = await send(
      'POST',
      '/v1/people',
      JSON.stringify({ name: 'Ámà Ọ̀wúsú', email: 'ok@corp.test' }),
    );
    expect(fine.statusCode).toBe(201);
  });
});
