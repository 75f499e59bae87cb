import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { bootTestApp, TestApp } from '../../harness';
import { until } from '../../support/until';
import { Contract } from '../../support/openapi-contract';
import { createEndpoint } from '../../support/webhook-fixtures';
import { call, createOrg, TestOrg } from '../../support/platform-fixtures';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { LogProvider, MessagesService } from '../../../src/visitor/messages/messages.service';
import { VISIT_STATUSES, VISIT_TRANSITIONS } from '../../../src/visitor/visits/visit-state-machine';
import { VisitsService } from '../../../src/visitor/visits/visits.service';
import { PeriodicScheduler } from '../../../src/common/periodic';
import { forgedSignature } from '../../support/forged';

const OPERATOR = { type: 'operator' as const, id: 'test' };
const PASSWORD = 'correct horse battery staple';
let phoneSeq = 1000;
/** A valid Ghanaian mobile number, new each call. */
const newPhone = () => `+23324${String(4000000 + phoneSeq++).padStart(7, '0')}`;

describe('visits over HTTP', () => {
  let t: TestApp;
  let pg: Client;
  let contract: Contract;
  let org: TestOrg;
  let key: string;
  let site: string;
  let approvalSite: string;
  let host: string;

  const visit = (body: Record<string, unknown> = {}, k = key, idempotencyKey?: string) =>
    call(t.app, 'POST', '/v1/visits', {
      key: k,
      idempotencyKey,
      body: {
        site_id: site,
        host_id: host,
        type: 'meeting',
        visitor: { name: 'Kofi Boateng', phone: newPhone() },
        ...body,
      },
    });
  const eventsOf = async (visitId: string) =>
    (
      await pg.query(
        `SELECT type, body FROM visitor.event WHERE body::jsonb #>> '{data,object,id}' = $1 ORDER BY created_at, id`,
        [visitId],
      )
    ).rows.map((r) => ({ type: r.type as string, object: JSON.parse(r.body).data.object }));
  const locations = (res: { json(): { errors: { location: string }[] } }) =>
    res.json().errors.map((e) => e.location);

  beforeAll(async () => {
    t = await bootTestApp({
      env: {
        WEBHOOK_SWEEP_MS: '200',
        VISIT_NO_SHOW_GRACE_MINUTES: '30',
        WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
      },
    });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    contract = await Contract.fetch(t.app, '/v1/openapi.json');
  });

  /** A fresh organisation per test: the test-mode allowance (100 requests a minute) is per organisation. */
  beforeEach(async () => {
    org = await createOrg(t.app, 'pro', 2);
    key = await org.key();
    [site, approvalSite] = org.sites.filter((s) => !s.livemode).map((s) => s.id);
    await pg.query(`UPDATE visitor.site SET requires_host_approval = true WHERE id = $1`, [approvalSite]);
    host = (
      await call(t.app, 'POST', '/v1/people', { key, body: { name: 'Ama Host', email: 'ama@host.test' } })
    ).json().id;
  });

  /** Signs an Admin of the current organisation in to the console. */
  async function consoleCookie(): Promise<string> {
    const email = `admin@${org.id.slice(4).toLowerCase()}.test`;
    await t.app
      .get(AccountsService)
      .create(org.id, { email, name: 'A', role: 'admin', password: PASSWORD }, OPERATOR);
    const res = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { email, password: PASSWORD },
    });
    return String(res.headers['set-cookie']).split(';')[0];
  }

  /** Changes a visit type of the current organisation through the console (both modes), as an Admin. */
  async function setVisitType(key: string, payload: Record<string, unknown>, cookie?: string): Promise<void> {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/console/visit-types/${key}`,
      headers: { cookie: cookie ?? (await consoleCookie()) },
      payload,
    });
    expect(res.statusCode).toBe(200);
  }
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  /** A live-mode visit of the current organisation (with its own live host), passes on WhatsApp then SMS. */
  async function liveVisit(visitorName: string, phone: string) {
    const live = await org.key({ mode: 'live' });
    const liveHost = (
      await call(t.app, 'POST', '/v1/people', { key: live, body: { name: 'Live Host', email: 'lh@x.test' } })
    ).json().id;
    const v = (
      await visit(
        {
          site_id: org.sites.find((s) => s.livemode)!.id,
          host_id: liveHost,
          visitor: { name: visitorName, phone },
          pass_channels: ['whatsapp', 'sms'],
        },
        live,
      )
    ).json();
    return { live, v: v as { id: string; visitor: { id: string } } };
  }

  /** A visit form with if/then, x-svc-show-if, a person question, a sensitive answer and a site-only question. */
  async function publishVisitForm(cookie: string): Promise<void> {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/console/forms/visit',
      headers: { cookie },
      payload: {
        schema: {
          type: 'object',
          'x-svc-order': ['laptop', 'laptop_serial', 'escort', 'id_number', 'parking'],
          properties: {
            laptop: { type: 'boolean', 'x-svc-type': 'yes_no', 'x-svc-public': true },
            laptop_serial: {
              type: 'string',
              'x-svc-show-if': { field: 'laptop', equals: true },
              'x-svc-public': true,
            },
            escort: { type: 'string', 'x-svc-type': 'person' },
            id_number: { type: 'string', 'x-svc-sensitive': true, 'x-svc-public': true },
            badge_code: { type: 'string', 'x-svc-masked': true },
            parking: { type: 'integer', 'x-svc-sites': [site] },
          },
          allOf: [
            {
              if: { properties: { laptop: { const: true } }, required: ['laptop'] },
              then: { required: ['laptop_serial'] },
            },
          ],
        },
      },
    });
    expect(res.statusCode).toBe(200);
  }

  it('creates a visit (201, contract-valid, visit.created) and matches the visitor by phone', async () => {
    const phone = newPhone();
    const first = await visit({
      visitor: { name: 'Kofi Boateng', phone, email: 'kofi@example.com', company: 'Acme' },
      purpose: 'Contract review',
      expected_at: '2030-01-01T09:00:00Z',
      expected_until: '2030-01-01T10:00:00Z',
      pass_channels: ['sms', 'email'],
    });
    expect(first.statusCode).toBe(201);
    contract.expectValid(first, 'POST', '/v1/visits');
    const v = first.json();
    expect(v).toMatchObject({
      status: 'expected',
      source: 'invitation',
      site_id: site,
      host_id: host,
      visitor: { name: 'Kofi Boateng', phone, email: 'kofi@example.com', company: 'Acme' },
      expected_at: '2030-01-01T09:00:00.000Z',
      pass: { channels: ['sms', 'email'] },
      decision: null,
    });
    const second = (await visit({ visitor: { name: 'Kofi B.', phone } })).json();
    expect(second.visitor).toMatchObject({ id: v.visitor.id, name: 'Kofi B.', email: 'kofi@example.com' });
    const other = (await visit({ visitor: { name: 'Kofi Boateng', phone: newPhone() } })).json();
    expect(other.visitor.id).not.toBe(v.visitor.id);
    expect((await eventsOf(v.id)).map((e) => e.type)).toContain('visit.created');
    const got = await call(t.app, 'GET', `/v1/visits/${v.id}`, { key });
    contract.expectValid(got, 'GET', '/v1/visits/{visit_id}');
    const visitor = await call(t.app, 'GET', `/v1/visitors/${v.visitor.id}`, { key });
    expect(visitor.json()).toMatchObject({ id: v.visitor.id, name: 'Kofi B.', phone });
    contract.expectValid(visitor, 'GET', '/v1/visitors/{visitor_id}');
  });

  it('refuses bad bodies with every problem at its location', async () => {
    const missing = await call(t.app, 'POST', '/v1/visits', { key, body: { visitor: { name: 'X' } } });
    expect(missing.statusCode).toBe(422);
    expect(locations(missing).sort()).toEqual([
      'body.host_id',
      'body.site_id',
      'body.type',
      'body.visitor.phone',
    ]);
    const phone = await visit({ visitor: { name: 'X', phone: '0244123456' } });
    expect(locations(phone)).toEqual(['body.visitor.phone']);
    const other = (await call(t.app, 'GET', `/v1/sites`, { key }))
      .json()
      .data.find((s: { id: string }) => s.id === approvalSite);
    const refs = await visit({
      gate_id: other.gates[0].id,
      host_id: 'person_nobody',
      type: 'no_such_type',
      expected_at: '2030-01-01T10:00:00Z',
      expected_until: '2030-01-01T09:00:00Z',
    });
    expect(locations(refs).sort()).toEqual([
      'body.expected_until',
      'body.gate_id',
      'body.host_id',
      'body.type',
    ]);
    const noHost = (
      await call(t.app, 'POST', '/v1/people', {
        key,
        body: { name: 'Guard', email: `g${randomUUID()}@x.test`, can_host: false },
      })
    ).json().id;
    expect(locations(await visit({ host_id: noHost }))).toEqual(['body.host_id']);
    const cookie = await consoleCookie();
    await setVisitType('contractor', { enabled: false }, cookie);
    const off = await visit({ type: 'contractor' });
    expect(off.json().errors).toEqual([
      { location: 'body.type', message: 'visit type "contractor" is turned off' },
    ]);
    const badDate = await visit({ expected_at: '2030-02-30T09:00:00Z' });
    expect(locations(badDate)).toEqual(['body.expected_at']);
  });

  describe('the transition table', () => {
    const ACTIONS = ['check-in', 'approve', 'deny', 'check-out', 'cancel'] as const;
    const ACTION_KEY = {
      'check-in': 'check_in',
      approve: 'approve',
      deny: 'deny',
      'check-out': 'check_out',
      cancel: 'cancel',
    } as const;

    /** A visit in `status`, reached through the API (no_show through the job). */
    async function visitIn(status: string): Promise<string> {
      const needsApproval = ['awaiting_approval', 'denied'].includes(status);
      const v = (
        await visit({
          site_id: needsApproval ? approvalSite : site,
          expected_at: '2020-01-01T09:00:00Z',
          expected_until: '2020-01-01T10:00:00Z',
        })
      ).json();
      const go = (a: string) => call(t.app, 'POST', `/v1/visits/${v.id}/${a}`, { key, body: {} });
      if (status === 'checked_in' || status === 'checked_out') await go('check-in');
      if (status === 'checked_out') await go('check-out');
      if (status === 'awaiting_approval' || status === 'denied') await go('check-in');
      if (status === 'denied') await go('deny');
      if (status === 'cancelled') await go('cancel');
      if (status === 'no_show') {
        await t.app.get(VisitsService).markNoShows(60);
      }
      const now = (await call(t.app, 'GET', `/v1/visits/${v.id}`, { key })).json();
      expect(now.status).toBe(status);
      return v.id;
    }

    it.each(VISIT_STATUSES.map((s) => [s]))('from %s: every action as the table says', async (status) => {
      for (const action of ACTIONS) {
        const id = await visitIn(status);
        const rule = VISIT_TRANSITIONS[ACTION_KEY[action]];
        const visitEvents = async () => (await eventsOf(id)).filter((e) => e.type.startsWith('visit.'));
        const before = (await visitEvents()).length;
        const res = await call(t.app, 'POST', `/v1/visits/${id}/${action}`, {
          key,
          body: action === 'cancel' ? { reason: 'Host travelling' } : {},
        });
        if (!rule.from.includes(status)) {
          expect({ action, status: res.statusCode, code: res.json().code }).toEqual({
            action,
            status: 409,
            code: 'invalid_state',
          });
          expect((await visitEvents()).length).toBe(before);
          continue;
        }
        expect({ action, status: res.statusCode }).toEqual({ action, status: 200 });
        contract.expectValid(res, 'POST', `/v1/visits/{visit_id}/${action}`);
        const site = (await call(t.app, 'GET', `/v1/visits/${id}`, { key })).json().site_id;
        const expected = rule.apply({ siteRequiresApproval: site === approvalSite });
        const v = res.json();
        expect(v.status).toBe(expected.to);
        const newEvents = (await visitEvents()).slice(before);
        expect(newEvents.map((e) => e.type)).toEqual(expected.events);
        for (const e of newEvents) expect(e.object).toMatchObject({ id, status: expected.to });
        if (action === 'check-in' && expected.to === 'checked_in') expect(v.checked_in_at).not.toBeNull();
        if (action === 'check-out') expect(v.checked_out_at).not.toBeNull();
        if (action === 'cancel')
          expect(v).toMatchObject({ cancel_reason: 'Host travelling', cancelled_at: expect.any(String) });
        if (action === 'approve')
          expect(v.decision).toMatchObject({ outcome: 'approved', decided_at: expect.any(String) });
        if (action === 'deny') expect(v.decision).toMatchObject({ outcome: 'denied' });
      }
    });

    it('approve records who decided; no-show marks only expected visits past their window', async () => {
      const id = await visitIn('awaiting_approval');
      const res = await call(t.app, 'POST', `/v1/visits/${id}/approve`, {
        key,
        body: { decided_by: host, reason: 'Known contractor' },
      });
      expect(res.json().decision).toMatchObject({
        outcome: 'approved',
        decided_by: host,
        reason: 'Known contractor',
      });
      const future = (await visit({ expected_at: '2099-01-01T09:00:00Z' })).json();
      await t.app.get(VisitsService).markNoShows(60);
      expect((await call(t.app, 'GET', `/v1/visits/${future.id}`, { key })).json().status).toBe('expected');
      const past = await visitIn('no_show');
      expect((await eventsOf(past)).map((e) => e.type)).toContain('visit.no_show');
    });

    it('cancel racing check-in: exactly one wins, and the visit and its events agree with the winner', async () => {
      for (let i = 0; i < 4; i++) {
        const id = (await visit()).json().id;
        const [cancel, checkIn] = await Promise.all([
          call(t.app, 'POST', `/v1/visits/${id}/cancel`, { key, body: { reason: 'race' } }),
          call(t.app, 'POST', `/v1/visits/${id}/check-in`, { key, body: {} }),
        ]);
        expect([cancel.statusCode, checkIn.statusCode].sort()).toEqual([200, 409]);
        const loser = cancel.statusCode === 409 ? cancel : checkIn;
        expect(loser.json().code).toBe('invalid_state');
        const status = cancel.statusCode === 200 ? 'cancelled' : 'checked_in';
        expect((await call(t.app, 'GET', `/v1/visits/${id}`, { key })).json().status).toBe(status);
        const types = (await eventsOf(id)).map((e) => e.type);
        expect(types.filter((x) => x === 'visit.cancelled' || x === 'visit.checked_in')).toEqual([
          status === 'cancelled' ? 'visit.cancelled' : 'visit.checked_in',
        ]);
      }
    });

    it('resend-pass on a visit that has ended is invalid_state and issues no pass', async () => {
      const passes = async (id: string) =>
        (await pg.query(`SELECT count(*)::int AS n FROM visitor.visit_pass WHERE visit_id = $1`, [id]))
          .rows[0].n;
      for (const status of ['checked_out', 'cancelled', 'denied', 'no_show']) {
        const id = await visitIn(status);
        const before = await passes(id);
        const res = await call(t.app, 'POST', `/v1/visits/${id}/resend-pass`, { key, body: {} });
        expect({ status, code: res.statusCode, body: res.json().code }).toEqual({
          status,
          code: 409,
          body: 'invalid_state',
        });
        contract.expectValid(res, 'POST', `/v1/visits/${id}/resend-pass`);
        expect(await passes(id)).toBe(before);
      }
    });

    it('the no-show job honours the configured grace period (VISIT_NO_SHOW_GRACE_MINUTES=30)', async () => {
      expect(t.config.visits.noShowGraceMinutes).toBe(30);
      const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
      const inGrace = (await visit({ expected_at: ago(90), expected_until: ago(29) })).json().id;
      const pastGrace = (await visit({ expected_at: ago(90), expected_until: ago(31) })).json().id;
      const startOnly = (await visit({ expected_at: ago(31) })).json().id;
      const startOnlyInGrace = (await visit({ expected_at: ago(29) })).json().id;
      const checkedIn = (await visit({ expected_at: ago(90), expected_until: ago(60) })).json().id;
      await call(t.app, 'POST', `/v1/visits/${checkedIn}/check-in`, { key, body: {} });
      expect(await t.app.get(PeriodicScheduler).run('visits.mark-no-shows')).toBeGreaterThanOrEqual(2);
      const statusOf = async (id: string) =>
        (await call(t.app, 'GET', `/v1/visits/${id}`, { key })).json().status;
      expect({
        inGrace: await statusOf(inGrace),
        pastGrace: await statusOf(pastGrace),
        startOnly: await statusOf(startOnly),
        startOnlyInGrace: await statusOf(startOnlyInGrace),
        checkedIn: await statusOf(checkedIn),
      }).toEqual({
        inGrace: 'expected',
        pastGrace: 'no_show',
        startOnly: 'no_show',
        startOnlyInGrace: 'expected',
        checkedIn: 'checked_in',
      });
      const noShow = (await eventsOf(pastGrace)).filter((e) => e.type === 'visit.no_show');
      expect(noShow).toHaveLength(1);
      expect(noShow[0].object).toMatchObject({ id: pastGrace, status: 'no_show' });
    });

    it('two concurrent check-ins of one visit: exactly one succeeds', async () => {
      const id = (await visit()).json().id;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => call(t.app, 'POST', `/v1/visits/${id}/check-in`, { key, body: {} })),
      );
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes.filter((c) => c === 200)).toHaveLength(1);
      expect(codes.filter((c) => c === 409)).toHaveLength(7);
      expect((await eventsOf(id)).filter((e) => e.type === 'visit.checked_in')).toHaveLength(1);
    });
  });

  it('PATCH validates like create, records visit.updated, and is refused once the visit ended', async () => {
    const v = (await visit()).json();
    const ok = await call(t.app, 'PATCH', `/v1/visits/${v.id}`, {
      key,
      body: {
        expected_at: '2031-05-01T08:00:00Z',
        expected_until: '2031-05-01T09:00:00Z',
        purpose: 'Interview',
      },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ expected_at: '2031-05-01T08:00:00.000Z', purpose: 'Interview' });
    expect((await eventsOf(v.id)).map((e) => e.type)).toContain('visit.updated');
    const bad = await call(t.app, 'PATCH', `/v1/visits/${v.id}`, {
      key,
      body: { expected_until: '2031-05-01T07:00:00Z', type: 'nope' },
    });
    expect(locations(bad).sort()).toEqual(['body.expected_until', 'body.type']);
    await setVisitType('delivery', { enabled: false });
    const off = await call(t.app, 'PATCH', `/v1/visits/${v.id}`, { key, body: { type: 'delivery' } });
    expect(off.statusCode).toBe(422);
    contract.expectValid(off, 'PATCH', `/v1/visits/${v.id}`);
    expect(off.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ location: 'body.type', message: 'visit type "delivery" is turned off' }],
    });
    expect((await call(t.app, 'GET', `/v1/visits/${v.id}`, { key })).json().type).toBe('meeting');
    await call(t.app, 'POST', `/v1/visits/${v.id}/cancel`, { key, body: {} });
    const late = await call(t.app, 'PATCH', `/v1/visits/${v.id}`, { key, body: { purpose: 'x' } });
    expect(late.json().code).toBe('invalid_state');
  });

  it('lists visits with filters (status, site, host, expected window, updated_since), keyset-paged', async () => {
    const fresh = await createOrg(t.app, 'pro', 2);
    const k = await fresh.key();
    const [s, s2] = fresh.sites.filter((x) => !x.livemode).map((x) => x.id);
    const person = async (email: string) =>
      (await call(t.app, 'POST', '/v1/people', { key: k, body: { name: 'H', email } })).json().id;
    const h = await person('h@h.test');
    const h2 = await person('h2@h.test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await visit(
            {
              site_id: i === 4 ? s2 : s,
              host_id: i === 3 ? h2 : h,
              expected_at: `2030-01-0${i + 1}T09:00:00Z`,
            },
            k,
          )
        ).json().id,
      );
    // passes are sent (and touch updated_at) after the creates: wait until every visit has had its pass
    await until(
      async () =>
        (
          await pg.query(
            `SELECT count(*)::int AS n FROM visitor.visit WHERE organisation_id = $1 AND pass_last_sent_at IS NOT NULL`,
            [fresh.id],
          )
        ).rows[0].n === 5,
    );
    const lastWrite = (
      await pg.query(`SELECT max(updated_at) AS at FROM visitor.visit WHERE organisation_id = $1`, [fresh.id])
    ).rows[0].at as Date;
    const since = new Date(lastWrite.getTime() + 1).toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await call(t.app, 'POST', `/v1/visits/${ids[1]}/check-in`, { key: k, body: {} });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(t.app, 'GET', `/v1/visits?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
        key: k,
      });
      contract.expectValid(res, 'GET', '/v1/visits');
      seen.push(...res.json().data.map((v: { id: string }) => v.id));
      cursor = res.json().next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const list = async (query: string) => {
      const res = await call(t.app, 'GET', `/v1/visits?${query}`, { key: k });
      contract.expectValid(res, 'GET', '/v1/visits');
      return res.json().data.map((v: { id: string }) => v.id);
    };
    expect(await list('status=checked_in')).toEqual([ids[1]]);
    expect(await list(`site_id=${s2}`)).toEqual([ids[4]]);
    expect(await list(`host_id=${h2}`)).toEqual([ids[3]]);
    expect(await list(`site_id=${s}&host_id=${h}`)).toEqual([ids[0], ids[1], ids[2]]);
    expect(await list(`updated_since=${encodeURIComponent(since)}`)).toEqual([ids[1]]);
    expect(await list(`updated_since=${encodeURIComponent(lastWrite.toISOString())}`)).toEqual([
      ids[1],
      ids[4],
    ]);
    expect(await list('expected_from=2030-01-02T00:00:00Z&expected_to=2030-01-04T00:00:00Z')).toEqual([
      ids[1],
      ids[2],
    ]);
    // expected_from is inclusive, expected_to exclusive
    expect(await list('expected_from=2030-01-02T09:00:00Z&expected_to=2030-01-04T09:00:00Z')).toEqual([
      ids[1],
      ids[2],
    ]);
    expect(await list(`expected_from=2030-01-04T00:00:00Z&host_id=${h}`)).toEqual([ids[4]]);
    const bad = await call(t.app, 'GET', '/v1/visits?status=gone&limit=500&site_id=nope', { key: k });
    expect(locations(bad).sort()).toEqual(['query.limit', 'query.site_id', 'query.status']);
    const badDates = await call(t.app, 'GET', '/v1/visits?updated_since=yesterday&expected_from=2030-13-01', {
      key: k,
    });
    expect(locations(badDates).sort()).toEqual(['query.expected_from', 'query.updated_since']);
  });

  describe('custom fields, protected answers and the console', () => {
    let cookie: string;
    beforeEach(async () => {
      cookie = await consoleCookie();
      await publishVisitForm(cookie);
    });

    it('validates answers: if/then, x-svc-show-if, person answers, site-only questions', async () => {
      const needSerial = await visit({ custom_fields: { laptop: true } });
      expect(locations(needSerial)).toEqual(['body.custom_fields.laptop_serial']);
      const notAsked = await visit({ custom_fields: { laptop: false, laptop_serial: 'X1' } });
      expect(locations(notAsked)).toEqual(['body.custom_fields.laptop_serial']);
      const wrongType = await visit({ custom_fields: { laptop: 'yes', unknown_q: 1 } });
      expect(locations(wrongType).sort()).toEqual([
        'body.custom_fields.laptop',
        'body.custom_fields.unknown_q',
      ]);
      const nobody = await visit({ custom_fields: { escort: 'person_nobody' } });
      expect(locations(nobody)).toEqual(['body.custom_fields.escort']);
      const otherSite = await visit({ site_id: approvalSite, custom_fields: { parking: 2 } });
      expect(locations(otherSite)).toEqual(['body.custom_fields.parking']);
      const ok = await visit({
        custom_fields: { laptop: true, laptop_serial: 'X1', escort: host, parking: 2 },
      });
      expect(ok.statusCode).toBe(201);
    });

    it('sensitive and masked answers are stored, shown in the console, and absent from API responses and events', async () => {
      const res = await visit({
        custom_fields: { laptop: false, id_number: 'GHA-123456789-0', badge_code: 'MASKED-7731' },
      });
      const v = res.json();
      expect(v.custom_fields).toEqual({ laptop: false });
      expect((await call(t.app, 'GET', `/v1/visits/${v.id}`, { key })).json().custom_fields).toEqual({
        laptop: false,
      });
      const list = (await call(t.app, 'GET', '/v1/visits?limit=100', { key })).json();
      expect(JSON.stringify(list)).not.toContain('GHA-123456789-0');
      expect(JSON.stringify(list)).not.toContain('MASKED-7731');
      expect(JSON.stringify(list)).toContain(v.id);
      await call(t.app, 'POST', `/v1/visits/${v.id}/check-in`, { key, body: {} });
      for (const secret of ['GHA-123456789-0', 'MASKED-7731']) {
        const events = await pg.query(`SELECT body FROM visitor.event WHERE body LIKE $1`, [`%${secret}%`]);
        expect({ secret, events: events.rowCount }).toEqual({ secret, events: 0 });
      }
      expect((await eventsOf(v.id)).map((e) => e.type)).toEqual(
        expect.arrayContaining(['visit.created', 'visit.checked_in']),
      );
      const console = await t.app.inject({
        method: 'GET',
        url: `/console/visits/${v.id}?mode=test`,
        headers: { cookie },
      });
      expect(console.json().custom_fields).toEqual({
        laptop: false,
        id_number: 'GHA-123456789-0',
        badge_code: 'MASKED-7731',
      });
    });
  });

  describe('passes', () => {
    it('sends a pass to the test outbox, records pass.sent, and an idempotent retry sends no second pass', async () => {
      const idem = randomUUID();
      const phone = newPhone();
      const body = { visitor: { name: 'Efua Pass', phone } };
      const first = await visit(body, key, idem);
      const again = await call(t.app, 'POST', '/v1/visits', {
        key,
        idempotencyKey: idem,
        body: { site_id: site, host_id: host, type: 'meeting', ...body },
      });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().id).toBe(first.json().id);
      const id = first.json().id;
      await until(async () => (await eventsOf(id)).some((e) => e.type === 'pass.sent'));
      const cookie = await consoleCookie();
      const outbox = (
        await t.app.inject({ method: 'GET', url: '/console/test-outbox?limit=100', headers: { cookie } })
      ).json();
      const mine = outbox.data.filter((m: { related_id: string }) => m.related_id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ channel: 'whatsapp', recipient: phone });
      expect(mine[0].body).toContain(`${t.config.siteUrl}/passes/pass_`);
      const sent = (await eventsOf(id)).find((e) => e.type === 'pass.sent')!;
      expect(sent.object.pass.last_sent_at).toEqual(expect.any(String));
    });

    it('visits created at once each get their own pass, once (passes issued together go in one job)', async () => {
      const phones = Array.from({ length: 6 }, () => newPhone());
      const made = await Promise.all(
        phones.map((phone) => visit({ visitor: { name: 'Kojo Together', phone } }, key, randomUUID())),
      );
      const ids = made.map((r) => r.json().id as string);
      await until(async () =>
        (await Promise.all(ids.map(eventsOf))).every((events) => events.some((e) => e.type === 'pass.sent')),
      );
      const cookie = await consoleCookie();
      const outbox = (
        await t.app.inject({ method: 'GET', url: '/console/test-outbox?limit=100', headers: { cookie } })
      ).json();
      for (const [i, id] of ids.entries()) {
        const mine = outbox.data.filter((m: { related_id: string }) => m.related_id === id);
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({ recipient: phones[i] });
      }
    });

    it('falls back in order in live mode; resend revokes the earlier pass', async () => {
      const messages = t.app.get(MessagesService);
      const sent: string[] = [];
      messages.useProvider({
        name: 'wa',
        channel: 'whatsapp',
        send: async () => ({ ok: false, error: 'not on WhatsApp' }),
      });
      messages.useProvider({
        name: 'smsco',
        channel: 'sms',
        send: async (r) => (sent.push(`sms:${r}`), { ok: true }),
      });
      const phone = newPhone();
      const { live, v } = await liveVisit('Yaw Live', phone);
      const rows = async () =>
        (
          await pg.query(
            `SELECT channel, status, body FROM visitor.message WHERE related_id = $1 ORDER BY created_at`,
            [v.id],
          )
        ).rows;
      // The message row is written after the provider's call returns: wait on the stored row, not on the call.
      const sentRows = (n: number) =>
        until(async () => {
          const r = await rows();
          return r.filter((m) => m.status === 'sent').length === n && r;
        }, 30_000);
      expect((await sentRows(1)).map((r) => [r.channel, r.status])).toEqual([
        ['whatsapp', 'failed'],
        ['sms', 'sent'],
      ]);
      expect(sent).toEqual([`sms:${phone}`]);
      const firstToken = /passes\/(\S+)/.exec((await rows())[1].body)![1];
      const resent = await call(t.app, 'POST', `/v1/visits/${v.id}/resend-pass`, { key: live, body: {} });
      expect(resent.statusCode).toBe(202);
      const all = await sentRows(2);
      expect(sent).toHaveLength(2);
      const secondToken = /passes\/(\S+)/.exec(all[all.length - 1].body)![1];
      expect(secondToken).not.toBe(firstToken);
      const old = await call(t.app, 'POST', `/v1/visits/${v.id}/check-in`, {
        key: live,
        body: { pass: firstToken },
      });
      expect(old.json()).toMatchObject({ code: 'validation_failed', errors: [{ location: 'body.pass' }] });
      const forged = await call(t.app, 'POST', `/v1/visits/${v.id}/check-in`, {
        key: live,
        body: { pass: forgedSignature(secondToken) },
      });
      expect(forged.json().errors[0].location).toBe('body.pass');
      const ok = await call(t.app, 'POST', `/v1/visits/${v.id}/check-in`, {
        key: live,
        body: { pass: secondToken },
      });
      expect(ok.json().status).toBe('checked_in');
    });
  });

  describe('publishable keys (pre-registration)', () => {
    let pk: string;
    beforeEach(async () => {
      pk = await org.key({ kind: 'publishable' });
      const cookie = await consoleCookie();
      await setVisitType('interview', { pre_registration: true }, cookie);
      await publishVisitForm(cookie);
    });

    it('pre-registers only open types, only public questions; everything else is forbidden', async () => {
      const closed = await visit({ type: 'meeting' }, pk);
      expect(closed.json().errors).toEqual([
        { location: 'body.type', message: 'visit type "meeting" is not open for pre-registration' },
      ]);
      const privateQ = await visit({ type: 'interview', custom_fields: { escort: host } }, pk);
      expect(privateQ.json().errors).toEqual([
        { location: 'body.custom_fields.escort', message: 'is not a question of the public form' },
      ]);
      const ok = await visit({ type: 'interview', custom_fields: { laptop: false } }, pk);
      expect(ok.statusCode).toBe(201);
      expect(ok.json()).toMatchObject({ source: 'pre_registration', type: 'interview' });
      for (const [method, url] of [
        ['GET', '/v1/visits'],
        ['GET', `/v1/visits/${ok.json().id}`],
        ['POST', `/v1/visits/${ok.json().id}/check-in`],
        ['GET', '/v1/forms'],
      ] as const) {
        const res = await call(t.app, method, url, { key: pk, body: method === 'POST' ? {} : undefined });
        expect({ url, code: res.json().code }).toEqual({ url, code: 'forbidden' });
      }
    });
  });

  describe('pre-registration and conditional requirements', () => {
    it('the public form keeps if/then among visitor-facing questions; pre-registration enforces them', async () => {
      const pk = await org.key({ kind: 'publishable' });
      const cookie = await consoleCookie();
      await setVisitType('interview', { pre_registration: true }, cookie);
      const ifLaptop = { if: { properties: { laptop: { const: true } }, required: ['laptop'] } };
      const published = await t.app.inject({
        method: 'PUT',
        url: '/console/forms/visit',
        headers: { cookie },
        payload: {
          schema: {
            type: 'object',
            properties: {
              laptop: { type: 'boolean', 'x-svc-type': 'yes_no', 'x-svc-public': true },
              laptop_serial: { type: 'string', 'x-svc-public': true },
              laptop_tagged: { type: 'boolean' },
            },
            allOf: [
              { ...ifLaptop, then: { required: ['laptop_serial'] } },
              // staff tag the laptop at the desk: not the visitor's question
              { ...ifLaptop, then: { required: ['laptop_tagged'] } },
            ],
          },
        },
      });
      expect(published.statusCode).toBe(200);
      const type = await call(t.app, 'GET', '/v1/visit-types/interview', { key: pk });
      contract.expectValid(type, 'GET', '/v1/visit-types/{visit_type}');
      const schema = type.json().public_form.schema;
      expect(Object.keys(schema.properties)).toEqual(['laptop', 'laptop_serial']);
      expect(schema.allOf).toEqual([{ ...ifLaptop, then: { required: ['laptop_serial'] } }]);
      const listed = (await call(t.app, 'GET', '/v1/visit-types', { key: pk })).json().data[0];
      expect(listed.public_form.schema.allOf).toEqual(schema.allOf);

      const noSerial = await visit({ type: 'interview', custom_fields: { laptop: true } }, pk);
      expect(noSerial.statusCode).toBe(422);
      contract.expectValid(noSerial, 'POST', '/v1/visits');
      expect(noSerial.json().errors).toEqual([
        { location: 'body.custom_fields.laptop_serial', message: 'is required' },
      ]);
      const pre = await visit(
        { type: 'interview', custom_fields: { laptop: true, laptop_serial: 'SN-9' } },
        pk,
      );
      expect(pre.statusCode).toBe(201);
      expect(pre.json()).toMatchObject({
        source: 'pre_registration',
        custom_fields: { laptop_serial: 'SN-9' },
      });
      // with a secret key the whole form applies, staff questions included
      const staff = await visit({
        type: 'interview',
        custom_fields: { laptop: true, laptop_serial: 'SN-9' },
      });
      expect(locations(staff)).toEqual(['body.custom_fields.laptop_tagged']);
    });
  });

  /** No row of any table of the visitor and ops schemas holds any of the needles. */
  async function expectNoTrace(needles: string[]): Promise<void> {
    const tables = (
      await pg.query(
        `SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('visitor', 'ops') AND table_type = 'BASE TABLE'`,
      )
    ).rows;
    expect(tables.length).toBeGreaterThan(10);
    for (const { table_schema, table_name } of tables) {
      for (const needle of needles) {
        const hit = await pg.query(
          `SELECT count(*)::int AS n FROM ${table_schema}.${table_name} t WHERE t::text LIKE $1`,
          [`%${needle}%`],
        );
        expect({ table: `${table_schema}.${table_name}`, needle, n: hit.rows[0].n }).toEqual({
          table: `${table_schema}.${table_name}`,
          needle,
          n: 0,
        });
      }
    }
  }

  it('erasure removes the visitor from every table (answers, reasons, webhook echoes), emits visitor.erased, and the visitor is then not_found', async () => {
    // a webhook receiver that echoes every payload back: its answers are stored as attempt excerpts
    const echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/hook`;
    try {
      await createEndpoint(t.app, t.config, { organisationId: org.id, livemode: false }, echoUrl, ['*']);
      await publishVisitForm(await consoleCookie());
      const tag = randomUUID().slice(0, 8);
      const phone = newPhone();
      const name = `Erase Me ${tag}`;
      const email = `erase.${tag}@example.com`;
      const answers = [`SN-${tag}`, `ID-${tag}`, `BADGE-${tag}`];
      const reasons = [`cancelled-${tag}`, `denied-${tag}`];
      const v1 = (
        await visit({
          visitor: { name, phone, email, company: 'Gone Ltd' },
          purpose: `Meeting ${name}`,
          custom_fields: {
            laptop: true,
            laptop_serial: answers[0],
            id_number: answers[1],
            badge_code: answers[2],
          },
        })
      ).json();
      expect(v1.id).toMatch(/^visit_/);
      const v2 = (await visit({ visitor: { name, phone } })).json();
      await call(t.app, 'POST', `/v1/visits/${v2.id}/check-in`, { key, body: {} });
      const v3 = (await visit({ visitor: { name, phone }, site_id: approvalSite })).json();
      await call(t.app, 'POST', `/v1/visits/${v3.id}/check-in`, { key, body: {} });
      const denied = await call(t.app, 'POST', `/v1/visits/${v3.id}/deny`, {
        key,
        body: { reason: reasons[1] },
      });
      expect(denied.json()).toMatchObject({ status: 'denied', decision: { reason: reasons[1] } });
      const v4 = (await visit({ visitor: { name, phone } })).json();
      const cancelled = await call(t.app, 'POST', `/v1/visits/${v4.id}/cancel`, {
        key,
        body: { reason: reasons[0] },
      });
      expect(cancelled.json()).toMatchObject({ status: 'cancelled', cancel_reason: reasons[0] });
      await until(async () => (await eventsOf(v1.id)).some((e) => e.type === 'pass.sent'));
      // every delivery answered, and the echoes hold the visitor's details: there is something to erase
      const deliveriesDone = async () =>
        (
          await pg.query(
            `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*)::int AS n
               FROM visitor.webhook_delivery WHERE organisation_id = $1`,
            [org.id],
          )
        ).rows[0];
      await until(async () => {
        const d = await deliveriesDone();
        return d.n > 0 && d.pending === 0;
      });
      const echoed = await pg.query(
        `SELECT count(*)::int AS n FROM visitor.webhook_attempt WHERE response_excerpt LIKE $1`,
        [`%${tag}%`],
      );
      expect(echoed.rows[0].n).toBeGreaterThan(0);
      for (const needle of [...reasons, answers[0]]) {
        const inEvents = await pg.query(`SELECT count(*)::int AS n FROM visitor.event WHERE body LIKE $1`, [
          `%${needle}%`,
        ]);
        expect({ needle, n: inEvents.rows[0].n > 0 }).toEqual({ needle, n: true });
      }

      const res = await call(t.app, 'DELETE', `/v1/visitors/${v1.visitor.id}`, { key });
      expect(res.statusCode).toBe(204);
      expect((await call(t.app, 'GET', `/v1/visitors/${v1.visitor.id}`, { key })).statusCode).toBe(404);
      expect((await call(t.app, 'DELETE', `/v1/visitors/${v1.visitor.id}`, { key })).statusCode).toBe(404);
      await expectNoTrace([name, phone, email, phone.slice(1), tag, ...answers, ...reasons]);
      // counts stay: the visits remain, emptied
      const after = (await call(t.app, 'GET', `/v1/visits/${v2.id}`, { key })).json();
      expect(after).toMatchObject({
        status: 'checked_in',
        visitor: { id: v1.visitor.id, name: null, phone: null },
      });
      expect((await call(t.app, 'GET', `/v1/visits/${v3.id}`, { key })).json()).toMatchObject({
        status: 'denied',
        decision: { outcome: 'denied', reason: null },
      });
      expect((await call(t.app, 'GET', `/v1/visits/${v4.id}`, { key })).json()).toMatchObject({
        status: 'cancelled',
        cancel_reason: null,
      });
      const erased = await pg.query(
        `SELECT body FROM visitor.event WHERE type = 'visitor.erased' AND body LIKE $1`,
        [`%${v1.visitor.id}%`],
      );
      expect(erased.rowCount).toBe(1);
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  });

  it("erasure also removes providers' error texts that quote the recipient (passes and messages)", async () => {
    const messages = t.app.get(MessagesService);
    for (const channel of ['whatsapp', 'sms'] as const)
      messages.useProvider({
        name: `${channel}-down`,
        channel,
        send: async (recipient) => ({ ok: false, error: `${recipient} is unreachable` }),
      });
    try {
      const phone = newPhone();
      const { live, v } = await liveVisit('Unreachable Person', phone);
      const pass = async () =>
        (await pg.query(`SELECT status, error FROM visitor.visit_pass WHERE visit_id = $1`, [v.id])).rows[0];
      await until(async () => (await pass()).status === 'failed');
      expect((await pass()).error).toContain(phone);
      expect((await call(t.app, 'DELETE', `/v1/visitors/${v.visitor.id}`, { key: live })).statusCode).toBe(
        204,
      );
      expect(await pass()).toEqual({ status: 'failed', error: 'visitor erased' });
      await expectNoTrace([phone, phone.slice(1), 'Unreachable Person']);
    } finally {
      for (const channel of ['whatsapp', 'sms'] as const) messages.useProvider(new LogProvider(channel));
    }
  });

  it('plan history hides old visits and visitors in live mode, except active ones; erasure still reaches them', async () => {
    const pro = await createOrg(t.app, 'pro');
    const live = await pro.key({ mode: 'live' });
    await pg.query(`UPDATE visitor.organisation SET history_days = 30 WHERE id = $1`, [pro.id]);
    const s = pro.sites.find((x) => x.livemode)!.id;
    const h = (
      await call(t.app, 'POST', '/v1/people', { key: live, body: { name: 'H', email: 'h@p.test' } })
    ).json().id;
    const old = (await visit({ site_id: s, host_id: h }, live)).json();
    const oldActive = (await visit({ site_id: s, host_id: h }, live)).json();
    const recent = (await visit({ site_id: s, host_id: h }, live)).json();
    await call(t.app, 'POST', `/v1/visits/${old.id}/cancel`, { key: live, body: {} });
    await pg.query(`UPDATE visitor.visit SET created_at = now() - interval '40 days' WHERE id = ANY($1)`, [
      [old.id, oldActive.id],
    ]);
    await pg.query(`UPDATE visitor.visitor SET last_visit_at = now() - interval '40 days' WHERE id = $1`, [
      old.visitor.id,
    ]);
    const list = (await call(t.app, 'GET', '/v1/visits?limit=100', { key: live })).json();
    expect(list.data.map((v: { id: string }) => v.id)).toEqual([oldActive.id, recent.id]);
    const hidden = await call(t.app, 'GET', `/v1/visits/${old.id}`, { key: live });
    expect(hidden.json().code).toBe('plan_required');
    expect(
      (await call(t.app, 'POST', `/v1/visits/${old.id}/check-in`, { key: live, body: {} })).json().code,
    ).toBe('plan_required');
    expect((await call(t.app, 'GET', `/v1/visits/${oldActive.id}`, { key: live })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/v1/visitors/${old.visitor.id}`, { key: live })).json().code).toBe(
      'plan_required',
    );
    expect((await call(t.app, 'DELETE', `/v1/visitors/${old.visitor.id}`, { key: live })).statusCode).toBe(
      204,
    );
  });
});
