import { Client } from 'pg';
import { bootServiceContext, ServiceContext } from '../../harness';
import { PeopleService } from '../../../src/visitor/people/people.service';
import { FormsService } from '../../../src/visitor/forms/forms.service';
import { ApiError } from '../../../src/common/errors/api-error';

describe('people', () => {
  let t: ServiceContext;
  let pg: Client;
  const tenant = { organisationId: 'org_people', livemode: true };

  beforeAll(async () => {
    t = await bootServiceContext({ env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    await t.app.get(FormsService).publish(tenant, 'person', {
      type: 'object',
      properties: {
        badge_colour: { type: 'string', enum: ['red', 'blue'] },
        national_id: { type: 'string', 'x-svc-sensitive': true },
      },
    });
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  const svc = () => t.app.get(PeopleService);
  const codeOf = async (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: ApiError) => ({ code: e.code, errors: e.errors }),
    );
  const eventsOf = async (id: string) =>
    (
      await pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb -> 'data' -> 'object' ->> 'id' = $1 ORDER BY created_at, type`,
        [id],
      )
    ).rows.map((r) => ({
      type: r.type,
      object: JSON.parse(r.body).data.object,
    }));

  it('creates a person with the decided fields; protected answers only reach the console', async () => {
    const p = await svc().create(tenant, {
      name: 'Ama Mensah',
      email: 'ama@example.com',
      phone: '+233244123456',
      custom_fields: { badge_colour: 'red', national_id: 'GHA-1' },
    });
    expect(Object.keys(p).sort()).toEqual([
      'active',
      'can_host',
      'created_at',
      'custom_fields',
      'department',
      'email',
      'employee_number',
      'id',
      'job_title',
      'name',
      'phone',
      'site_ids',
      'updated_at',
    ]);
    expect(p).toMatchObject({
      id: expect.stringMatching(/^person_/),
      active: true,
      can_host: true,
      custom_fields: { badge_colour: 'red' },
    });
    expect((await svc().get(tenant, p.id, 'console')).custom_fields).toEqual({
      badge_colour: 'red',
      national_id: 'GHA-1',
    });
    const events = await eventsOf(p.id);
    expect(events.map((e) => e.type)).toEqual(['person.created']);
    expect(events[0].object.custom_fields).toEqual({ badge_colour: 'red' });
    expect(JSON.stringify(events)).not.toContain('GHA-1');
  });

  it('keeps e-mails unique among people, case-insensitively (conflict at body.email)', async () => {
    await svc().create(tenant, { name: 'Kofi', email: 'kofi@example.com' });
    expect(await codeOf(svc().create(tenant, { name: 'Kofi 2', email: 'KOFI@example.com' }))).toEqual({
      code: 'conflict',
      errors: [{ location: 'body.email', message: 'is already used by another person' }],
    });
    // the same e-mail in the other mode or another organisation is another person
    await svc().create({ ...tenant, livemode: false }, { name: 'Kofi', email: 'kofi@example.com' });
    await svc().create(
      { organisationId: 'org_other', livemode: true },
      { name: 'Kofi', email: 'kofi@example.com' },
    );
  });

  it('validates custom fields against the person form', async () => {
    expect(
      await codeOf(
        svc().create(tenant, {
          name: 'X',
          email: 'x@example.com',
          custom_fields: { badge_colour: 'green', shoe: 1 },
        }),
      ),
    ).toEqual({
      code: 'validation_failed',
      errors: expect.arrayContaining([
        { location: 'body.custom_fields.badge_colour', message: 'must be one of "red", "blue"' },
        { location: 'body.custom_fields.shoe', message: 'is not a field of this form' },
      ]),
    });
  });

  it('deactivates and reactivates with events carrying the Person; twice is invalid_state', async () => {
    const p = await svc().create(tenant, { name: 'Esi', email: 'esi@example.com' });
    expect(await svc().setActive(tenant, p.id, false)).toMatchObject({ active: false });
    expect(await codeOf(svc().setActive(tenant, p.id, false))).toMatchObject({ code: 'invalid_state' });
    expect(await svc().setActive(tenant, p.id, true)).toMatchObject({ active: true });
    const events = await eventsOf(p.id);
    expect(events.map((e) => e.type)).toEqual(['person.created', 'person.deactivated', 'person.reactivated']);
    expect(events[1].object).toMatchObject({ id: p.id, active: false, email: 'esi@example.com' });
  });

  it('is not found from another organisation or mode', async () => {
    const p = await svc().create(tenant, { name: 'Yaw', email: 'yaw@example.com' });
    expect(await codeOf(svc().get({ ...tenant, livemode: false }, p.id))).toMatchObject({
      code: 'not_found',
    });
    expect(
      await codeOf(svc().update({ organisationId: 'org_other', livemode: true }, p.id, { name: 'Z' })),
    ).toMatchObject({ code: 'not_found' });
  });

  it('lists with q, can_host and email filters in a stable keyset order', async () => {
    const t2 = { organisationId: 'org_list', livemode: true };
    for (const [name, email, canHost] of [
      ['Abena Owusu', 'abena@corp.example', true],
      ['Kwame Owusu', 'kwame@corp.example', false],
      ['Adjoa Boateng', 'adjoa@corp.example', true],
    ] as const)
      await svc().create(t2, { name, email, can_host: canHost });
    expect((await svc().list(t2, { q: 'owusu', limit: 25 })).data.map((p) => p.name)).toEqual([
      'Abena Owusu',
      'Kwame Owusu',
    ]);
    expect((await svc().list(t2, { q: 'adj', limit: 25 })).data.map((p) => p.name)).toEqual([
      'Adjoa Boateng',
    ]);
    expect((await svc().list(t2, { canHost: true, limit: 25 })).data.map((p) => p.name)).toEqual([
      'Abena Owusu',
      'Adjoa Boateng',
    ]);
    expect(
      (await svc().list(t2, { email: 'KWAME@corp.example', limit: 25 })).data.map((p) => p.name),
    ).toEqual(['Kwame Owusu']);
    const first = await svc().list(t2, { limit: 2 });
    expect(first.hasMore).toBe(true);
    const second = await svc().list(t2, {
      limit: 2,
      after: { createdAt: first.last!.createdAt, id: first.last!.id },
    });
    expect([...first.data, ...second.data].map((p) => p.name)).toEqual([
      'Abena Owusu',
      'Kwame Owusu',
      'Adjoa Boateng',
    ]);
    expect(second.hasMore).toBe(false);
  });
});
