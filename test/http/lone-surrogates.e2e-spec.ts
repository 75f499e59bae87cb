import { randomUUID } from 'node:crypto';
import { bootVisitorOrg, VisitorOrg } from '../support/visitor-org';
import { call } from '../support/platform-fixtures';
import { storedJson } from '../../src/visitor/events/events.service';

const LONE = 'must not contain a lone UTF-16 surrogate';

/** Issue 24 item 1: one lone UTF-16 surrogate must not block the erasure of every visitor of an organisation. */
describe('lone surrogates (issue 24, item 1)', () => {
  let v: VisitorOrg;
  let t: VisitorOrg['t'];
  let pg: VisitorOrg['pg'];
  let org: VisitorOrg['org'];
  let key: string;
  const visit = (...args: Parameters<VisitorOrg['visit']>) => v.visit(...args);

  beforeAll(async () => {
    v = await bootVisitorOrg();
    ({ t, pg, org, key } = v);
  });
  afterAll(() => v.close());

  it('refuses a lone surrogate at its field: person name, visit purpose, pre-registration, query string', async () => {
    const person = await call(t.app, 'POST', '/v1/people', {
      key,
      body: { name: '\ud800', email: 'lone@corp.test' },
    });
    expect(person.statusCode).toBe(422);
    expect(person.json().errors).toEqual([{ location: 'body.name', message: LONE }]);

    const purpose = await visit({ visitor: { name: 'Kofi', phone: '+233244100001' }, purpose: 'x \udc00 y' });
    expect(purpose.statusCode).toBe(422);
    expect(purpose.json().errors).toEqual([{ location: 'body.purpose', message: LONE }]);

    const note = await visit({
      visitor: { name: 'Kofi', phone: '+233244100001' },
      custom_fields: { note: 'x \ud800' },
    });
    expect(note.statusCode).toBe(422);
    expect(note.json().errors).toEqual([{ location: 'body.custom_fields.note', message: LONE }]);

    await pg.query(
      `UPDATE visitor.visit_type SET pre_registration = true WHERE organisation_id = $1 AND key = 'interview'`,
      [org.id],
    );
    const pk = await org.key({ kind: 'publishable' });
    const pre = await visit(
      { type: 'interview', visitor: { name: 'Ko\ud800fi', phone: '+233244100002' } },
      pk,
    );
    expect(pre.statusCode).toBe(422);
    expect(pre.json().errors).toEqual([{ location: 'body.visitor.name', message: LONE }]);
    // item 8: an answer holding one was a 500 (secret key above, publishable key here)
    const preNote = await visit(
      {
        type: 'interview',
        visitor: { name: 'Kofi', phone: '+233244100002' },
        custom_fields: { note: 'x \ud800' },
      },
      pk,
    );
    expect(preNote.statusCode).toBe(422);
    expect(preNote.json().errors).toEqual([{ location: 'body.custom_fields.note', message: LONE }]);

    // Percent-encoded, a surrogate is not UTF-8: refused before any handler sees it.
    const query = await call(t.app, 'GET', '/v1/people?q=%ED%A0%80', { key });
    expect(query.statusCode).toBe(400);
    expect(query.json().errors).toEqual([
      { location: 'query.q', message: 'must be valid percent-encoded UTF-8' },
    ]);

    const people = await pg.query(
      `SELECT count(*)::int AS n FROM visitor.person WHERE organisation_id = $1`,
      [org.id],
    );
    expect(people.rows[0].n).toBe(1);
  });

  it('an unreadable event body of another visitor does not block erasure, which leaves no trace', async () => {
    // An event body as JSON.stringify wrote it before lone surrogates were refused: PostgreSQL cannot read it.
    const unreadable = JSON.stringify({
      data: { object: { visitor: { id: 'vtr_other', name: 'x\ud800' } } },
    });
    await expect(pg.query(`SELECT $1::jsonb`, [unreadable])).rejects.toThrow(/json/);
    await pg.query(
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body)
       VALUES ($1, $2, false, 'visit.created', now(), $3)`,
      [`evt_${randomUUID().replace(/-/g, '')}`, org.id, unreadable],
    );

    const name = `Erased ${randomUUID().slice(0, 8)}`;
    const v = await visit({ visitor: { name, phone: '+233244100003' }, purpose: `purpose of ${name}` });
    expect(v.statusCode).toBe(201);
    const visitorId = v.json().visitor.id as string;
    const before = await pg.query(`SELECT count(*)::int AS n FROM visitor.event WHERE body LIKE $1`, [
      `%${name}%`,
    ]);
    expect(before.rows[0].n).toBeGreaterThan(0);

    const res = await call(t.app, 'DELETE', `/v1/visitors/${visitorId}`, { key });
    expect(res.statusCode).toBe(204);
    expect((await call(t.app, 'GET', `/v1/visitors/${visitorId}`, { key })).statusCode).toBe(404);
    const after = await pg.query(`SELECT count(*)::int AS n FROM visitor.event WHERE body LIKE $1`, [
      `%${name}%`,
    ]);
    expect(after.rows[0].n).toBe(0);
  });

  it('a stored event of the visitor itself holding a lone-surrogate escape does not block their erasure', async () => {
    const name = `Stored ${randomUUID().slice(0, 8)}`;
    const v = await visit({ visitor: { name, phone: '+233244100004' }, purpose: `purpose of ${name}` });
    expect(v.statusCode).toBe(201);
    const { id: visitId, visitor } = v.json() as { id: string; visitor: { id: string } };
    // Rows as written before the edge refused lone surrogates: this visitor's visit with one in its purpose (and an
    // escaped backslash before u, which is text, not an escape), and an idempotent response naming them.
    const object = { id: visitId, visitor: { id: visitor.id, name }, purpose: `x\ud800 \\ud800 ${name}` };
    const unreadable = JSON.stringify({ id: 'evt_x', type: 'visit.updated', data: { object } });
    expect(unreadable).toContain('\\\\ud800');
    await expect(pg.query(`SELECT $1::jsonb`, [unreadable])).rejects.toThrow(/json/);
    await pg.query(
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body)
       VALUES ($1, $2, false, 'visit.updated', now(), $3)`,
      [`evt_${randomUUID().replace(/-/g, '')}`, org.id, unreadable],
    );
    await pg.query(
      `INSERT INTO visitor.idempotency_key (organisation_id, livemode, key, request_hash, state, response_status,
                                            response_type, response_body, created_at, locked_until)
       VALUES ($1, false, $2, 'h', 'done', 201, 'application/json', $3, now(), now())`,
      [org.id, randomUUID(), JSON.stringify(object)],
    );

    const res = await call(t.app, 'DELETE', `/v1/visitors/${visitor.id}`, { key });
    expect(res.statusCode).toBe(204);
    const trace = await pg.query(
      `SELECT (SELECT count(*)::int FROM visitor.event WHERE body LIKE $1)
            + (SELECT count(*)::int FROM visitor.idempotency_key WHERE response_body LIKE $1) AS n`,
      [`%${name}%`],
    );
    expect(trace.rows[0].n).toBe(0);
    // the rewritten rows are readable now
    const unread = await pg.query(
      `SELECT body FROM visitor.event WHERE organisation_id = $1 AND strpos(body, $2) > 0`,
      [org.id, visitor.id],
    );
    expect(unread.rows.length).toBeGreaterThan(0);
    for (const row of unread.rows as { body: string }[])
      await expect(pg.query(`SELECT $1::jsonb`, [row.body])).resolves.toBeDefined();
  });

  it('event bodies are stored so PostgreSQL can always read them back', async () => {
    const body = storedJson({ data: { object: { purpose: 'a \ud800 b \udc00', ok: '\ud83d\ude00' } } });
    const read = await pg.query(`SELECT $1::jsonb #>> '{data,object}' AS o`, [body]);
    expect(JSON.parse(read.rows[0].o)).toEqual({ purpose: 'a \ufffd b \ufffd', ok: '\ud83d\ude00' });
  });
});
