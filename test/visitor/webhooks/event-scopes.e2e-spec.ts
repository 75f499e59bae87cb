import { DataSource } from 'typeorm';
import type { TestApp } from '../../harness';
import type * as oauth from 'oauth4webapi';
import {
  bootOAuthApp,
  createOrg,
  createPerson,
  discover,
  publicClientToken,
  registerApp,
} from '../../support/oauth-fixtures';
import { call, type TestOrg } from '../../support/platform-fixtures';
import type { AccountRow } from '../../../src/visitor/accounts/accounts.repository';
import { Transactions } from '../../../src/database/unit-of-work';
import { EventEnvelope, EventsService } from '../../../src/visitor/events/events.service';
import { EVENT_TYPES, eventReadScope, EventType } from '../../../src/visitor/events/event-types';
import { roleAllows, SCOPES, type Scope } from '../../../src/visitor/platform/scopes';
import { pastCreation, standIn } from '../../support/webhook-fixtures';

/**
 * Each event type's object needs the read scope of its own endpoint (events/event-types.ts) on GET /v1/events,
 * GET /v1/events/{id} and redelivery, for API keys and OAuth tokens alike; and redelivery to a named endpoint
 * follows the fan-out's subscription rule (`["*"]` does not cover watchlist.matched). The table is generated from
 * the catalogue, so a new type is covered without editing this file.
 */
describe('events: every type needs its object read scope; redelivery follows the subscription rule', () => {
  let t: TestApp & { baseUrl: string };
  let org: TestOrg;
  let manageKey: string;
  /** One endpoint listing every type, so redelivery has a subscriber for each. */
  let everyType: { id: string };
  const events = new Map<EventType, EventEnvelope>();
  const redirectUri = 'https://app.example.com/callback';

  beforeAll(async () => {
    t = await bootOAuthApp({ WEBHOOK_ALLOW_LOCAL_TARGETS: 'true', TEST_MODE_RATE_PER_MINUTE: '100000' });
    org = await createOrg(t.app, 'pro');
    manageKey = await org.key({ mode: 'test', scopes: ['webhooks:manage'] });
    // Naming a type in a subscription needs its read scope: the all-types endpoint is made with every scope.
    everyType = (await endpoint(await org.key({ mode: 'test' }), [...EVENT_TYPES])).json();
    // One event of every type, recorded oldest first in catalogue order, each in a later millisecond.
    let last: EventEnvelope | undefined;
    for (const type of EVENT_TYPES) {
      if (last) await pastCreation(last);
      last = await record(type, { id: `obj_${type}` });
      events.set(type, last);
    }
  });
  afterAll(() => t.close());

  const record = (type: EventType, object: unknown) =>
    t.app
      .get(Transactions)
      .run((uow) =>
        t.app
          .get(EventsService)
          .record(uow, { organisationId: org.id, livemode: false }, type, standIn(object)),
      );
  const endpoint = (key: string, enabledEvents: string[]) =>
    call(t.app, 'POST', '/v1/webhook-endpoints', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', enabled_events: enabledEvents },
    });
  const deliveryCount = async (eventId: string, endpointId?: string): Promise<number> => {
    const rows: { n: number }[] = await t.app
      .get(DataSource)
      .query(
        `SELECT count(*)::int AS n FROM visitor.webhook_delivery WHERE event_id = $1 AND ($2::text IS NULL OR endpoint_id = $2)`,
        [eventId, endpointId ?? null],
      );
    return rows[0].n;
  };

  /** Every event the credential lists, following the cursors with `limit`. */
  async function listAll(credential: string, limit = 100, query = ''): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await call(
        t.app,
        'GET',
        `/v1/events?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`,
        { key: credential },
      );
      expect(res.statusCode).toBe(200);
      const body = res.json();
      ids.push(...body.data.map((e: { id: string }) => e.id));
      if (!body.has_more) return ids;
      cursor = body.next_cursor;
    }
    throw new Error('too many pages');
  }

  /** What a credential sees of one event: listed, fetched, and (where asked) redelivered. */
  async function sees(credential: string, type: EventType, listed: string[]) {
    const ev = events.get(type)!;
    const fetched = await call(t.app, 'GET', `/v1/events/${ev.id}`, { key: credential });
    const filtered = await call(t.app, 'GET', `/v1/events?type=${type}`, { key: credential });
    expect(filtered.statusCode).toBe(200);
    return {
      listed: listed.includes(ev.id),
      filtered: filtered.json().data.map((e: { id: string }) => e.id),
      fetched: fetched.statusCode,
      body: fetched.json(),
    };
  }

  async function redeliver(credential: string, type: EventType) {
    const ev = events.get(type)!;
    const before = await deliveryCount(ev.id);
    const res = await call(t.app, 'POST', `/v1/events/${ev.id}/redeliver`, { key: credential, body: {} });
    return { res, added: (await deliveryCount(ev.id)) - before };
  }

  const keys = new Map<string, Promise<string>>();
  const keyOf = (scopes: string[]) => {
    const name = [...new Set(scopes)].sort().join(' ');
    if (!keys.has(name)) keys.set(name, org.key({ mode: 'test', scopes: [...new Set(scopes)] }));
    return keys.get(name)!;
  };
  const listings = new Map<string, Promise<string[]>>();
  const listingOf = (credential: string) => {
    if (!listings.has(credential)) listings.set(credential, listAll(credential));
    return listings.get(credential)!;
  };

  describe.each(EVENT_TYPES.map((type) => [type, eventReadScope(type)] as const))(
    'API keys: %s needs %s',
    (type, scope) => {
      it('a key with every other scope (events:read too) neither lists, fetches nor redelivers it', async () => {
        const without = await keyOf(SCOPES.filter((s) => s !== scope));
        const seen = await sees(without, type, await listingOf(without));
        expect(seen).toMatchObject({ listed: false, filtered: [], fetched: 404 });
        // exactly what an unknown id answers
        expect(seen.body).toMatchObject({
          code: 'not_found',
          detail: expect.stringContaining(events.get(type)!.id),
        });
        const { res, added } = await redeliver(without, type);
        if (scope === 'webhooks:manage') expect(res.json()).toMatchObject({ code: 'scope_missing' });
        else expect(res.json()).toMatchObject({ code: 'not_found' });
        expect(added).toBe(0);
      });

      it(`events:read with ${scope} lists, fetches it; with webhooks:manage redelivers it`, async () => {
        const withIt = await keyOf(['events:read', scope]);
        const seen = await sees(withIt, type, await listingOf(withIt));
        expect(seen).toMatchObject({ listed: true, filtered: [events.get(type)!.id], fetched: 200 });
        expect(seen.body).toEqual(events.get(type));
        const { res, added } = await redeliver(await keyOf(['webhooks:manage', scope]), type);
        expect(res.statusCode).toBe(202);
        expect(res.json().deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)).toEqual([
          everyType.id,
        ]);
        expect(added).toBe(1);
      });
    },
  );

  it('events:read alone lists nothing; a narrow key pages through exactly its types, newest first', async () => {
    expect(await listAll(await keyOf(['events:read']))).toEqual([]);
    const visitsOnly = await keyOf(['events:read', 'visits:read']);
    const expected = EVENT_TYPES.filter((type) => eventReadScope(type) === 'visits:read')
      .map((type) => events.get(type)!.id)
      .reverse();
    expect(expected.length).toBeGreaterThan(3);
    // pages of 3: the cursors step over the events the key does not see, and has_more ends on the last one
    expect(await listAll(visitsOnly, 3)).toEqual(expected);
    expect(await listAll(await keyOf([...SCOPES]), 100)).toEqual(
      EVENT_TYPES.map((type) => events.get(type)!.id).reverse(),
    );
  });

  describe('OAuth tokens: the scopes granted and the role of the person acting', () => {
    let as: oauth.AuthorizationServer;
    let clientId: string;
    let admin: AccountRow;
    let member: AccountRow;

    async function tokenFor(person: AccountRow, scope: string): Promise<string> {
      const tokens = await publicClientToken(t.baseUrl, as, {
        person,
        clientId,
        redirectUri,
        scope,
        mode: 'test',
      });
      // the token holds what was asked of it that the person's role allows (consent offers no other scope)
      expect(tokens.scope).toBe(
        scope
          .split(' ')
          .filter((s) => roleAllows(person.role, s as Scope))
          .join(' '),
      );
      return tokens.access_token;
    }

    beforeAll(async () => {
      as = await discover(t.baseUrl);
      admin = await createPerson(t, org, 'admin');
      member = await createPerson(t, org, 'member');
      const app = await registerApp(t, admin, 'public', redirectUri, 'Event reader');
      clientId = app.client_id;
    });

    it('a token with events:read alone sees no type; with every scope, every type (and redelivers it)', async () => {
      const narrow = await tokenFor(admin, 'events:read');
      const wide = await tokenFor(admin, SCOPES.join(' '));
      const [narrowList, wideList] = [await listAll(narrow), await listAll(wide)];
      expect(narrowList).toEqual([]);
      for (const type of EVENT_TYPES) {
        expect({ type, ...(await sees(narrow, type, narrowList)) }).toMatchObject({
          type,
          listed: false,
          filtered: [],
          fetched: 404,
        });
        expect({ type, ...(await sees(wide, type, wideList)) }).toMatchObject({
          type,
          listed: true,
          fetched: 200,
        });
        const { res, added } = await redeliver(wide, type);
        expect({ type, status: res.statusCode, added }).toEqual({ type, status: 202, added: 1 });
      }
    });

    it("a member's token with every scope sees only the types the member's role may read", async () => {
      const token = await tokenFor(member, SCOPES.join(' '));
      const listed = await listAll(token);
      const hidden = EVENT_TYPES.filter((type) => !roleAllows('member', eventReadScope(type)));
      // the member may not manage webhooks, so webhook_endpoint.disabled is not theirs to read
      expect(hidden).toContain('webhook_endpoint.disabled');
      for (const type of EVENT_TYPES) {
        const visible = !hidden.includes(type);
        expect({ type, ...(await sees(token, type, listed)) }).toMatchObject({
          type,
          listed: visible,
          fetched: visible ? 200 : 404,
        });
      }
    });
  });

  describe('redelivery to a named endpoint follows the subscription rule of the first delivery', () => {
    it('watchlist.matched to a ["*"] endpoint is validation_failed at body.endpoint_id; to one listing it, 202', async () => {
      const key = await keyOf(['webhooks:manage', 'watchlist:read', 'people:read']);
      const star = (await endpoint(key, ['*'])).json();
      const listing = (await endpoint(key, ['watchlist.matched'])).json();
      const match = await record('watchlist.matched', { id: 'wlm_1', object: 'watchlist_match' });
      // the first delivery: the listing endpoint, not the ["*"] one
      expect(await deliveryCount(match.id, star.id)).toBe(0);
      expect(await deliveryCount(match.id, listing.id)).toBe(1);

      const refused = await call(t.app, 'POST', `/v1/events/${match.id}/redeliver`, {
        key,
        body: { endpoint_id: star.id },
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ code: 'validation_failed' });
      expect(refused.json().errors).toEqual([
        {
          location: 'body.endpoint_id',
          message: expect.stringContaining('not subscribed to watchlist.matched'),
        },
      ]);
      expect(await deliveryCount(match.id, star.id)).toBe(0);

      const ok = await call(t.app, 'POST', `/v1/events/${match.id}/redeliver`, {
        key,
        body: { endpoint_id: listing.id },
      });
      expect(ok.statusCode).toBe(202);
      expect(await deliveryCount(match.id, listing.id)).toBe(2);
      // to every subscriber: the same rule (the all-types endpoint and the listing one, never ["*"])
      const all = await call(t.app, 'POST', `/v1/events/${match.id}/redeliver`, { key, body: {} });
      expect(
        all
          .json()
          .deliveries.map((d: { endpoint_id: string }) => d.endpoint_id)
          .sort(),
      ).toEqual([everyType.id, listing.id].sort());
      expect(await deliveryCount(match.id, star.id)).toBe(0);

      // any other type: ["*"] covers it, an endpoint not listing it does not
      const person = await record('person.created', { id: 'person_x', object: 'person' });
      const okStar = await call(t.app, 'POST', `/v1/events/${person.id}/redeliver`, {
        key,
        body: { endpoint_id: star.id },
      });
      expect(okStar.statusCode).toBe(202);
      const notListed = await call(t.app, 'POST', `/v1/events/${person.id}/redeliver`, {
        key,
        body: { endpoint_id: listing.id },
      });
      expect(notListed.statusCode).toBe(422);
      expect(notListed.json().errors[0]).toMatchObject({ location: 'body.endpoint_id' });
      expect(await deliveryCount(person.id, listing.id)).toBe(0);
    });
  });
  describe('the catalogue against an independent table, and subscriptions', () => {
    /** Written from the spec's scope table, not from the catalogue: a wrong mapping there fails here. */
    const READ_SCOPE_OF_RESOURCE: Record<string, string> = {
      visit: 'visits:read',
      pass: 'visits:read',
      visitor: 'visitors:read',
      person: 'people:read',
      delivery: 'deliveries:read',
      booking: 'bookings:read',
      attendance: 'attendance:read',
      rollcall: 'rollcalls:read',
      watchlist: 'watchlist:read',
      webhook_endpoint: 'webhooks:manage',
    };

    it("each type's read scope is its resource's, and a GET of the served document requires it", async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      const getScopes = new Set(
        Object.values(doc.paths as Record<string, { get?: { 'x-required-scope'?: string } }>)
          .map((p) => p.get?.['x-required-scope'])
          .filter(Boolean),
      );
      const wrong = EVENT_TYPES.filter(
        (type) => eventReadScope(type) !== READ_SCOPE_OF_RESOURCE[type.split('.')[0]],
      );
      expect(wrong).toEqual([]);
      expect([...new Set(EVENT_TYPES.map(eventReadScope))].filter((s) => !getScopes.has(s))).toEqual([]);
    });

    it('naming a type in an endpoint needs its read scope; "*" needs none beyond webhooks:manage', async () => {
      const count = async () =>
        (
          await t.app
            .get(DataSource)
            .query(`SELECT count(*)::int AS n FROM visitor.webhook_endpoint WHERE organisation_id = $1`, [
              org.id,
            ])
        )[0].n as number;
      const before = await count();
      const refused = await endpoint(manageKey, ['watchlist.matched']);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'scope_missing' });
      expect(refused.json().detail).toContain('watchlist:read');
      expect(await count()).toBe(before);

      const star = await endpoint(manageKey, ['*']);
      expect(star.statusCode).toBe(201);
      const changed = await call(t.app, 'PATCH', `/v1/webhook-endpoints/${star.json().id}`, {
        key: manageKey,
        body: { enabled_events: ['visit.created', 'watchlist.matched'] },
      });
      expect(changed.statusCode).toBe(403);
      expect(changed.json().detail).toMatch(/visits:read and watchlist:read/);
      const unchanged = await call(t.app, 'GET', `/v1/webhook-endpoints/${star.json().id}`, {
        key: manageKey,
      });
      expect(unchanged.json().enabled_events).toEqual(['*']);

      const allowed = await endpoint(await keyOf(['webhooks:manage', 'watchlist:read']), [
        'watchlist.matched',
      ]);
      expect(allowed.statusCode).toBe(201);
    });
  });
});
