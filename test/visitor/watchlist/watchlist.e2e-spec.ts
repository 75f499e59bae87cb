import { Webhook } from 'standardwebhooks';
import { call } from '../../support/platform-fixtures';
import { until } from '../../support/until';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { VisitTypesService } from '../../../src/visitor/visit-types/visit-types.service';
import { useDesk, phoneFrom } from '../../support/desk-app';
import { runCli } from '../../support/cli';

const newPhone = phoneFrom(5200000);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('watchlist over HTTP', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(() => receiver?.stop());
  const d = useDesk();

  const add = (body: Json, key = d.key) =>
    call(d.t.app, 'POST', '/v1/watchlist-entries', {
      key,
      body: { reason: 'Banned after an incident', severity: 'high', ...body },
    });
  const visit = (visitor: Json, key = d.key, extra: Json = {}) =>
    call(d.t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: d.site,
        host_id: d.host,
        type: 'meeting',
        visitor: { phone: newPhone(), ...visitor },
        ...extra,
      },
    });

  it('adds, lists, gets and removes entries; a national phone is stored as E.164', async () => {
    const res = await add({ name: 'Kwame Mensah', aliases: ['Kwame Mensa'], phone: '024 412 3456' });
    expect(res.statusCode).toBe(201);
    d.contract.expectValid(res, 'POST', '/v1/watchlist-entries');
    const e = res.json();
    expect(e).toMatchObject({
      phone: '+233244123456',
      aliases: ['Kwame Mensa'],
      active: true,
      severity: 'high',
    });
    expect(e.created_by).toMatch(/^key_/);
    const got = await call(d.t.app, 'GET', `/v1/watchlist-entries/${e.id}`, { key: d.key });
    d.contract.expectValid(got, 'GET', '/v1/watchlist-entries/{watch_id}');
    expect(got.json()).toEqual(e);
    const list = await call(d.t.app, 'GET', '/v1/watchlist-entries', { key: d.key });
    d.contract.expectValid(list, 'GET', '/v1/watchlist-entries');
    expect(list.json().data.map((x: Json) => x.id)).toEqual([e.id]);
    const bad = await add({ name: 'X', phone: '12' });
    expect(bad.json().errors[0].location).toBe('body.phone');
    expect((await call(d.t.app, 'DELETE', `/v1/watchlist-entries/${e.id}`, { key: d.key })).statusCode).toBe(
      204,
    );
    expect((await call(d.t.app, 'GET', `/v1/watchlist-entries/${e.id}`, { key: d.key })).statusCode).toBe(
      404,
    );
  });

  it('matches by phone, e-mail and fuzzy name, explains each match, and misses near misses and expired entries', async () => {
    const entries: Record<string, string> = {};
    for (const [label, body] of Object.entries({
      phone: { name: 'Xylophone Quarrington', phone: '024 412 3456' },
      email: { name: 'Quixote Zamborski', email: 'Kwabena.Owusu@Example.com' },
      name: { name: 'Kwámé Mensah', aliases: ['K. Mensah Jr'] },
      alias: { name: 'Abdul Rahman Iddrisu', aliases: ['Yaw Boakye'] },
      expired: { name: 'Ekow Tetteh Brightwater', expires_at: '2020-01-01T00:00:00Z' },
    } as Record<string, Json>)) {
      const res = await add(body);
      expect(res.statusCode).toBe(201);
      entries[label] = res.json().id;
    }
    const table: [string, Json, { entry: string; field: string; explanation: RegExp } | null][] = [
      [
        'exact phone given nationally',
        { name: 'Totally Unrelated', phone: '+233244123456' },
        {
          entry: 'phone',
          field: 'phone',
          explanation: /^phone equals the entry's phone \(E\.164\)$/,
        },
      ],
      [
        'e-mail in another case',
        { name: 'Someone Else', email: 'kwabena.owusu@EXAMPLE.COM' },
        {
          entry: 'email',
          field: 'email',
          explanation: /^e-mail equals the entry's e-mail \(case ignored\)$/,
        },
      ],
      [
        'accents and swapped word order',
        { name: 'MENSAH Kwame' },
        {
          entry: 'name',
          field: 'name',
          explanation: /^name matches name 'Kwámé Mensah': Kwámé exact; Mensah exact$/,
        },
      ],
      [
        'one typo, against an alias',
        { name: 'Yaw Boakyi' },
        {
          entry: 'alias',
          field: 'name',
          explanation:
            /^name matches alias 'Yaw Boakye': Yaw exact; Boakye variant \(same consonants and Double Metaphone key PK\)$/,
        },
      ],
      ['near miss: another given name', { name: 'Ama Mensah' }, null],
      ['expired entry', { name: 'Ekow Tetteh Brightwater' }, null],
    ];
    for (const [label, visitor, expected] of table) {
      const res = await visit(visitor);
      expect(res.statusCode).toBe(201);
      d.contract.expectValid(res, 'POST', '/v1/visits');
      const v = res.json();
      const matches = (v.watchlist?.matches ?? []) as Json[];
      if (!expected) {
        expect({ label, watchlist: v.watchlist }).toEqual({ label, watchlist: null });
        continue;
      }
      expect({ label, n: matches.length }).toEqual({ label, n: 1 });
      expect(matches[0]).toMatchObject({
        entry_id: entries[expected.entry],
        field: expected.field,
        severity: 'high',
      });
      expect(matches[0].explanation).toMatch(expected.explanation);
      expect(v.watchlist).toMatchObject({ flagged: true, severity: 'high' });
      // the flag stays on the visit, and the event carries the explanation
      const got = await call(d.t.app, 'GET', `/v1/visits/${v.id}`, { key: d.key });
      expect(got.json().watchlist).toEqual(v.watchlist);
      const ev = await d.pg.query(
        `SELECT body FROM visitor.event WHERE type = 'watchlist.matched' AND body::jsonb #>> '{data,object,visit_id}' = $1`,
        [v.id],
      );
      expect(ev.rows.map((r) => JSON.parse(r.body).data.object)).toEqual([
        expect.objectContaining({
          object: 'watchlist_match',
          entry_id: entries[expected.entry],
          visitor_id: v.visitor.id,
          explanation: matches[0].explanation,
          trigger: 'visit.created',
        }),
      ]);
    }
  });

  it('knows names: initials, transliteration, spelling variants and omitted names match, near misses do not, each explained', async () => {
    const ids: Record<string, string> = {};
    for (const name of [
      'Kwame Mensah',
      'Mohammed Al-Hassan',
      'Jürgen Schröder',
      'María José García López',
      'John Smith',
      'Zhang Wei',
      'Madonna',
    ]) {
      const res = await add({ name, severity: 'medium' });
      expect(res.statusCode).toBe(201);
      ids[name] = res.json().id;
    }
    const mine = new Set(Object.values(ids));
    const table: [string, string | null, RegExp?][] = [
      ['K. Mensah', 'Kwame Mensah', /^name matches name 'Kwame Mensah': Kwame initial; Mensah exact$/],
      [
        'Muhammad Al Hasan',
        'Mohammed Al-Hassan',
        /^name matches name 'Mohammed Al-Hassan': Mohammed variant \(same consonants and Double Metaphone key MHMT\); Hassan variant \(same consonants and Double Metaphone key HSN\)$/,
      ],
      [
        'Juergen Schroeder',
        'Jürgen Schröder',
        /^name matches name 'Jürgen Schröder': Jürgen transliteration; Schröder transliteration$/,
      ],
      [
        'María García',
        'María José García López',
        /^name matches name 'María José García López': María exact; García exact; not given: José, López$/,
      ],
      ['Дмитрий Smith', null],
      ['张伟', 'Zhang Wei', /^name matches name 'Zhang Wei': Zhang transliteration; Wei transliteration$/],
      ['John Smithson', null],
      ['Joan Smith', null],
      ['Zhang Wen', null],
      ['Madonna Smith', null],
      ['Kwame', null],
    ];
    for (const [name, entry, explanation] of table) {
      const v = (await visit({ name })).json();
      const got = ((v.watchlist?.matches ?? []) as Json[]).filter((m) => mine.has(m.entry_id));
      if (!entry) {
        expect({ name, got }).toEqual({ name, got: [] });
        continue;
      }
      expect({ name, got: got.map((m) => m.entry_id) }).toEqual({ name, got: [ids[entry]] });
      expect(got[0].field).toBe('name');
      expect(got[0].explanation).toMatch(explanation!);
      expect(got[0].explanation).not.toContain(name);
    }
  });

  it('screens again when a visit changes and at check-in; an entry added later matches then, once', async () => {
    const v = (await visit({ name: 'Adwoa Latecomer' })).json();
    expect(v.watchlist).toBeNull();
    await add({ name: 'Adwoa Latecomer', severity: 'medium' });
    const checkedIn = await call(d.t.app, 'POST', `/v1/visits/${v.id}/check-in`, { key: d.key, body: {} });
    expect(checkedIn.json()).toMatchObject({ status: 'checked_in', watchlist: { severity: 'medium' } });
    const patched = await call(d.t.app, 'PATCH', `/v1/visits/${v.id}`, {
      key: d.key,
      body: { purpose: 'Again' },
    });
    expect(patched.json().watchlist.matches).toHaveLength(1);
    const n = await d.pg.query(
      `SELECT count(*)::int AS n FROM visitor.event WHERE type = 'watchlist.matched' AND body LIKE $1`,
      [`%${v.id}%`],
    );
    expect(n.rows[0].n).toBe(1);
  });

  it('a site that holds them sends a check-in with a high-severity match to approval', async () => {
    // The operator turns the hold on with the CLI (the command a site's setting is changed with).
    const set = runCli(d.t.db.url, 'sites', 'watchlist-hold', d.site, '--org', d.org.id, '--holds', 'on');
    expect(set).toMatchObject({ id: d.site, livemode: false, watchlist_holds_check_in: true });
    await add({ name: 'Nana Holdme Oduro', severity: 'high' });
    await add({ name: 'Esi Lowrisk Appiah', severity: 'low' });
    const high = (await visit({ name: 'Nana Holdme Oduro' })).json();
    const low = (await visit({ name: 'Esi Lowrisk Appiah' })).json();
    const heldRes = await call(d.t.app, 'POST', `/v1/visits/${high.id}/check-in`, { key: d.key, body: {} });
    expect(heldRes.json().status).toBe('awaiting_approval');
    const lowRes = await call(d.t.app, 'POST', `/v1/visits/${low.id}/check-in`, { key: d.key, body: {} });
    expect(lowRes.json().status).toBe('checked_in');
    const approved = await call(d.t.app, 'POST', `/v1/visits/${high.id}/approve`, { key: d.key, body: {} });
    expect(approved.json().status).toBe('checked_in');
  });

  it('watchlist data stays away from publishable keys, keys without watchlist:read and other event types', async () => {
    await add({ name: 'Kojo Hidden Asare' });
    const noScope = await d.org.key({ scopes: ['visits:read', 'visits:write'] });
    const a = await visit({ name: 'Kojo Hidden Asare' }, noScope);
    expect(a.statusCode).toBe(201);
    expect('watchlist' in a.json()).toBe(false);
    expect(
      'watchlist' in (await call(d.t.app, 'GET', `/v1/visits/${a.json().id}`, { key: noScope })).json(),
    ).toBe(false);
    const page = (await call(d.t.app, 'GET', '/v1/visits', { key: noScope })).json();
    expect(page.data.some((v: Json) => 'watchlist' in v)).toBe(false);
    // the secret key with the scope sees the flag on the same visit
    expect(
      (await call(d.t.app, 'GET', `/v1/visits/${a.json().id}`, { key: d.key })).json().watchlist.flagged,
    ).toBe(true);

    await d.t.app.get(VisitTypesService).save({ organisationId: d.org.id, livemode: false }, 'interview', {
      name: 'Interview',
      pre_registration: true,
    });
    const pk = await d.org.key({ kind: 'publishable' });
    const pre = await visit({ name: 'Kojo Hidden Asare' }, pk, { type: 'interview' });
    expect(pre.statusCode).toBe(201);
    expect(pre.json().source).toBe('pre_registration');
    expect('watchlist' in pre.json()).toBe(false);
    expect(pre.body).not.toMatch(/watch|Banned/);
    expect((await call(d.t.app, 'GET', '/v1/watchlist-entries', { key: pk })).json().code).toBe('forbidden');

    // other event types never carry it
    const others = await d.pg.query(
      `SELECT body FROM visitor.event WHERE organisation_id = $1 AND type <> 'watchlist.matched'`,
      [d.org.id],
    );
    expect(others.rows.length).toBeGreaterThan(0);
    for (const r of others.rows) expect(r.body).not.toMatch(/watchlist|watch_|Banned after/);
  });

  it("erasing a matched visitor leaves no trace of them in the watchlist's tables or anywhere else", async () => {
    const phone = newPhone();
    await add({ name: 'Obeng Erasable Larbi', phone });
    const v = (
      await visit({ name: 'Obeng Erasable Larbi', phone, email: 'obeng.erasable@example.com' })
    ).json();
    expect(v.watchlist.flagged).toBe(true);
    expect((await call(d.t.app, 'DELETE', `/v1/visitors/${v.visitor.id}`, { key: d.key })).statusCode).toBe(
      204,
    );
    const tables = (
      await d.pg.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'visitor' AND table_type = 'BASE TABLE'
           AND table_name NOT LIKE 'watchlist_entry' AND table_name NOT LIKE 'watchlist_name'`,
      )
    ).rows.map((r) => r.table_name as string);
    expect(tables).toContain('watchlist_match');
    for (const table of tables)
      for (const needle of [phone, 'obeng.erasable@example.com']) {
        const rows =
          // (the stored response that created the entry holds the entry's own phone: watchlist data, not the visitor's)
          (
            await d.pg.query(
              `SELECT left(t::text, 400) AS row FROM visitor.${table} t
              WHERE t::text LIKE $1 AND t::text NOT LIKE '%{""id"":""watch_%'`,
              [`%${needle}%`],
            )
          ).rows;
        expect({ table, needle, rows }).toEqual({ table, needle, rows: [] });
      }
    // the match itself stays (entry, field, explanation), without the visitor's value
    const m = await d.pg.query(
      `SELECT field, matched_value FROM visitor.watchlist_match WHERE visit_id = $1 ORDER BY field`,
      [v.id],
    );
    expect(m.rows).toEqual([
      { field: 'name', matched_value: null },
      { field: 'phone', matched_value: null },
    ]);
  });

  it('watchlist.matched goes only to an endpoint that lists it, never through "*"', async () => {
    const mk = async (path: string, events: string[]) =>
      (
        await call(d.t.app, 'POST', '/v1/webhook-endpoints', {
          key: d.key,
          body: { url: receiver.url(path), enabled_events: events },
        })
      ).json();
    const tag = d.org.id.slice(4, 14);
    const explicit = await mk(`/ok/explicit-${tag}`, ['watchlist.matched']);
    await mk(`/ok/star-${tag}`, ['*']);
    await add({ name: 'Fiifi Webhook Quansah' });
    const v = (await visit({ name: 'Fiifi Webhook Quansah' })).json();
    expect(v.watchlist.flagged).toBe(true);

    const [got] = await receiver.waitFor(`/ok/explicit-${tag}`, 1);
    const payload = new Webhook(explicit.secret).verify(
      got.body,
      got.headers as Record<string, string>,
    ) as Json;
    expect(payload).toMatchObject({ type: 'watchlist.matched', data: { object: { visit_id: v.id } } });
    // the "*" endpoint hears of the visit, and of nothing on the watchlist
    await until(
      async () =>
        receiver
          .on(`/ok/star-${tag}`)
          .some((r) => JSON.parse(r.body).type === 'visit.created' && r.body.includes(v.id)),
      10_000,
    );
    const starTypes = receiver.on(`/ok/star-${tag}`).map((r) => JSON.parse(r.body).type);
    expect(starTypes).not.toContain('watchlist.matched');
    expect(receiver.on(`/ok/explicit-${tag}`)).toHaveLength(1);
  });
});
