import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { CreatedAfter } from '../platform/pagination';
import { EXPLICIT_ONLY_EVENT_TYPES } from '../events/event-types';
import { assertTenant, Tenant } from '../platform/tenant';
import { PLAN_RULES, PLANS } from '../platform/plans';
import { change, row, rows } from '../../database/sql';

export type { Tenant };

/** A receiver of webhooks (`visitor.webhook_endpoint`); deleted endpoints stay for the delivery log. */
export interface WebhookEndpointRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  url: string;
  description: string;
  enabledEvents: string[];
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** One event to one endpoint (`visitor.webhook_delivery`). */
export interface WebhookDeliveryRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  eventId: string;
  endpointId: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  nextAttemptAt: Date | null;
  lockedUntil: Date | null;
  firstFailureAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Set while the organisation's plan lacks live webhooks: the delivery waits, unattempted, for the plan. */
  heldSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One attempt of a delivery (`visitor.webhook_attempt`); `id` is a bigint, read as text. */
export interface WebhookAttemptRow {
  id: string;
  deliveryId: string;
  attemptNumber: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

/** The endpoint columns a change may set, by field. */
const ENDPOINT_COLUMN: Record<
  Exclude<keyof WebhookEndpointRow, 'id' | 'organisationId' | 'livemode'>,
  string
> = {
  url: 'url',
  description: 'description',
  enabledEvents: 'enabled_events',
  status: 'status',
  disabledReason: 'disabled_reason',
  secretSealed: 'secret_sealed',
  previousSecretSealed: 'previous_secret_sealed',
  previousSecretExpiresAt: 'previous_secret_expires_at',
  failingSince: 'failing_since',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  deletedAt: 'deleted_at',
};

const ENDPOINT_COLUMNS = `id, organisation_id AS "organisationId", livemode, url, description,
  enabled_events AS "enabledEvents", status, disabled_reason AS "disabledReason", secret_sealed AS "secretSealed",
  previous_secret_sealed AS "previousSecretSealed", previous_secret_expires_at AS "previousSecretExpiresAt",
  failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt", deleted_at AS "deletedAt"`;

const DELIVERY_COLUMNS = `id, organisation_id AS "organisationId", livemode, event_id AS "eventId",
  endpoint_id AS "endpointId", status, attempt_count AS "attemptCount", next_attempt_at AS "nextAttemptAt",
  locked_until AS "lockedUntil", first_failure_at AS "firstFailureAt", last_attempt_at AS "lastAttemptAt",
  last_status_code AS "lastStatusCode", last_error AS "lastError", held_since AS "heldSince",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

const ATTEMPT_COLUMNS = `id::text AS id, delivery_id AS "deliveryId", attempt_number AS "attemptNumber",
  attempted_at AS "attemptedAt", status_code AS "statusCode", duration_ms AS "durationMs", error,
  response_excerpt AS "responseExcerpt"`;

/** Plans whose live mode includes webhooks; a live delivery of an organisation on another plan is held. */
const WEBHOOK_PLANS = PLANS.filter((p) => PLAN_RULES[p].live.includes('webhooks'));

/**
 * SQL: a delivery in live mode (`livemode`) of an organisation whose `plan` is not one of `plans` (a text[]
 * parameter). An organisation without a row (synthetic tenants of tests and benchmarks) is never held.
 */
const lapsed = (livemode: string, plan: string, plans: string) =>
  `COALESCE(${livemode} AND NOT (${plan} = ANY(${plans}::text[])), false)`;

/**
 * SQL: the subscription rule, the one place it is written. The endpoint row `e` gets events of the type `type` (a
 * text parameter) when it lists the type, or lists `*` and the type is not in `explicitOnly` (a text[] parameter
 * holding EXPLICIT_ONLY_EVENT_TYPES). Fan-out and redelivery (to every subscriber or to one named endpoint) use it.
 */
const subscribed = (type: string, explicitOnly: string) =>
  `(${type} = ANY(e.enabled_events) OR ('*' = ANY(e.enabled_events) AND ${type} <> ALL(${explicitOnly}::text[])))`;

export interface DueDelivery {
  id: string;
  attempt_count: number;
  next_attempt_at: Date;
  /** Set when an earlier claim expired: the worker that held it died mid-attempt. */
  locked_until: Date | null;
}

interface ClaimRow {
  id: string;
  event_id: string;
  attempt_count: number;
  body: string;
  endpoint_id: string;
  organisation_id: string;
  livemode: boolean;
  url: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  deleted_at: Date | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  held: boolean;
}

export interface ClaimedDelivery {
  delivery: { id: string; eventId: string; attemptCount: number };
  /** The organisation's plan lacks live webhooks: the delivery is now held, not claimed for an attempt. */
  held: boolean;
  body: string;
  endpoint: Pick<
    WebhookEndpointRow,
    | 'id'
    | 'organisationId'
    | 'livemode'
    | 'url'
    | 'status'
    | 'disabledReason'
    | 'deletedAt'
    | 'secretSealed'
    | 'previousSecretSealed'
    | 'previousSecretExpiresAt'
  >;
}

/** Which deliveries a claim takes: the named ones, or up to `limit` of those due. */
export type ClaimOf = { ids: string[] } | { limit: number };

/**
 * The claim size for a wish of `limit` rows: the largest of 1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181,
 * … (2^(k/2), rounded) not above it. Each size is its own prepared statement with the size written into its SQL:
 * with `LIMIT $n` PostgreSQL cannot know how many rows a claim takes, so its generic plan joined the claimed rows by
 * hashing the whole table, and it planned every claim anew instead (about 0.4 ms, a third of a claim of 110 rows);
 * with the size written in, the generic plan looks the rows up by key and is used from the sixth claim on. A wish
 * is never exceeded, and less than 30 % of it is left for the next claim.
 */
export function claimSize(limit: number): number {
  let size = limit >= 1 ? 1 : 0;
  for (let k = 1; Math.round(2 ** (k / 2)) <= limit; k++) size = Math.round(2 ** (k / 2));
  return size;
}

/**
 * The claim statement (WebhooksRepository.claim): the deliveries named by `$4`, or (`size`) that many of the due ones
 * at most. `$1` is now, `$2` the claim's length in milliseconds, `$3` the plans with webhooks.
 */
export function claimStatement(size: number | null): { name: string; text: string } {
  return {
    name: size === null ? 'webhook_claim_ids' : `webhook_claim_due_${size}`,
    text: `WITH claimed AS (${
      size === null
        ? 'SELECT unnest($4::text[]) AS id'
        : `SELECT id FROM visitor.webhook_delivery
            WHERE status = 'pending' AND held_since IS NULL AND next_attempt_at <= $1
              AND (locked_until IS NULL OR locked_until < $1)
            ORDER BY next_attempt_at LIMIT ${size} FOR UPDATE SKIP LOCKED`
    })
     UPDATE visitor.webhook_delivery d
        SET locked_until = CASE WHEN ${lapsed('d.livemode', 'o.plan', '$3')} THEN NULL
                                ELSE $1::timestamptz + ($2 || ' milliseconds')::interval END,
            held_since = CASE WHEN ${lapsed('d.livemode', 'o.plan', '$3')} THEN $1 END,
            updated_at = $1
       FROM claimed c
       JOIN published.events_body e ON true
       JOIN visitor.webhook_endpoint ep ON true
       LEFT JOIN published.organisations_plan o ON o.id = ep.organisation_id
      WHERE d.id = c.id AND e.id = d.event_id AND ep.id = d.endpoint_id
        -- Inside CASE so the planner finds the rows by their primary key: written plainly, these conditions
        -- match the partial due index, which a plan with stale statistics scans through the whole backlog.
        AND CASE WHEN d.held_since IS NULL AND d.status = 'pending' AND d.next_attempt_at <= $1
                      AND (d.locked_until IS NULL OR d.locked_until < $1) THEN true ELSE false END
    RETURNING d.id, d.event_id, d.attempt_count, e.body, ep.id AS endpoint_id, ep.organisation_id, ep.livemode, ep.url, ep.status, ep.disabled_reason,
              ep.deleted_at, ep.secret_sealed, ep.previous_secret_sealed, ep.previous_secret_expires_at,
              d.held_since IS NOT NULL AS held`,
  };
}

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  attemptNumber: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  excerpt: string | null;
  succeeded: boolean;
  nextAttemptAt: Date | null;
}

/** Endpoints, deliveries and attempts (events' bodies and plans read through published views). */
@Injectable()
export class WebhooksRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The delivery hot path (claim, outcome) uses named prepared statements. */
  private prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.ds, name, text, values);
  }

  /**
   * One pending delivery per enabled endpoint of `tenant` subscribed to each just-recorded event (the tenant's
   * events of one transaction, in the order recorded), in one statement (every change of the API records events,
   * so this is a hot path); returns the delivery ids. Prepared, and written to the transaction's connection when
   * called, right behind the events' INSERT. The subscription rule is `subscribed`: `*` covers every type but
   * EXPLICIT_ONLY_EVENT_TYPES (watchlist.matched). Delivery ids are `dlv_` + 122 random bits (base64url-like).
   * `dueAt` (the wall clock, not the event's ticked `created_at`, which may run a few ms ahead of it) is when the
   * first attempt is due, so the job enqueued after commit finds the delivery due when it runs.
   */
  async insertDeliveriesOfEvents(
    m: EntityManager,
    tenant: Tenant,
    events: readonly { id: string; type: string; createdAt: Date; dueAt: Date }[],
  ): Promise<string[]> {
    assertTenant(tenant);
    const rows = await preparedQuery<{ id: string }>(
      m,
      'delivery_insert_of_events',
      `INSERT INTO visitor.webhook_delivery (id, organisation_id, livemode, event_id, endpoint_id, status, attempt_count,
                                             next_attempt_at, created_at, updated_at)
       SELECT 'dlv_' || translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/=', ''),
              $1, $2, x.id, e.id, 'pending', 0, x.due_at, x.created_at, x.created_at
         FROM unnest($3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
              WITH ORDINALITY x(id, type, created_at, due_at, n)
         JOIN visitor.webhook_endpoint e
           ON e.organisation_id = $1 AND e.livemode = $2 AND e.status = 'enabled' AND e.deleted_at IS NULL
          AND ${subscribed('x.type', '$7')}
        ORDER BY x.n
       RETURNING id`,
      [
        tenant.organisationId,
        tenant.livemode,
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => e.createdAt),
        events.map((e) => e.dueAt),
        EXPLICIT_ONLY_EVENT_TYPES,
      ],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Enabled endpoints of the tenant subscribed to `type` by the fan-out's rule (`*` covers every type but the
   * explicit-only ones), or only `endpointId` if it is one of them.
   */
  subscribedEndpoints(
    m: EntityManager,
    tenant: Tenant,
    type: string,
    endpointId?: string,
  ): Promise<Pick<WebhookEndpointRow, 'id'>[]> {
    assertTenant(tenant);
    return m.query(
      `SELECT e.id FROM visitor.webhook_endpoint e
        WHERE e.organisation_id = $1 AND e.livemode = $2 AND e.status = 'enabled' AND e.deleted_at IS NULL
          AND ${subscribed('$3', '$4')} AND ($5::text IS NULL OR e.id = $5)
        ORDER BY e.created_at, e.id`,
      [tenant.organisationId, tenant.livemode, type, EXPLICIT_ONLY_EVENT_TYPES, endpointId ?? null],
    );
  }

  async insertDeliveries(m: EntityManager, deliveries: WebhookDeliveryRow[]): Promise<void> {
    if (!deliveries.length) return;
    const values: unknown[] = [];
    const tuples = deliveries.map((d) => {
      const at = values.length;
      values.push(
        d.id,
        d.organisationId,
        d.livemode,
        d.eventId,
        d.endpointId,
        d.status,
        d.attemptCount,
        d.nextAttemptAt,
        d.lockedUntil,
        d.firstFailureAt,
        d.lastAttemptAt,
        d.lastStatusCode,
        d.lastError,
        d.heldSince,
        d.createdAt,
        d.updatedAt,
      );
      return `(${Array.from({ length: 16 }, (_, i) => `$${at + i + 1}`).join(', ')})`;
    });
    await m.query(
      `INSERT INTO visitor.webhook_delivery (id, organisation_id, livemode, event_id, endpoint_id, status,
              attempt_count, next_attempt_at, locked_until, first_failure_at, last_attempt_at, last_status_code,
              last_error, held_since, created_at, updated_at)
       VALUES ${tuples.join(', ')}`,
      values,
    );
  }

  async insertEndpoint(e: WebhookEndpointRow, manager: EntityManager = this.ds.manager): Promise<void> {
    assertTenant(e);
    await manager.query(
      `INSERT INTO visitor.webhook_endpoint (id, organisation_id, livemode, url, description, enabled_events, status,
              disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since,
              created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        e.id,
        e.organisationId,
        e.livemode,
        e.url,
        e.description,
        e.enabledEvents,
        e.status,
        e.disabledReason,
        e.secretSealed,
        e.previousSecretSealed,
        e.previousSecretExpiresAt,
        e.failingSince,
        e.createdAt,
        e.updatedAt,
        e.deletedAt,
      ],
    );
  }

  findEndpoint(
    tenant: Tenant,
    id: string,
    manager: EntityManager = this.ds.manager,
    /** Lock the row until the end of `manager`'s transaction (a read before changing it). */
    forUpdate = false,
  ): Promise<WebhookEndpointRow | null> {
    assertTenant(tenant);
    return row<WebhookEndpointRow>(
      manager,
      `SELECT ${ENDPOINT_COLUMNS} FROM visitor.webhook_endpoint
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3 AND deleted_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
      [id, tenant.organisationId, tenant.livemode],
    );
  }

  /** Sets the fields of `changes` that are not undefined (at least one) on the tenant's endpoint; returns it. */
  async updateEndpoint(
    tenant: Tenant,
    id: string,
    changes: Partial<WebhookEndpointRow>,
    manager: EntityManager = this.ds.manager,
  ): Promise<WebhookEndpointRow> {
    assertTenant(tenant);
    const values: unknown[] = [id, tenant.organisationId, tenant.livemode];
    const sets: string[] = [];
    for (const [field, column] of Object.entries(ENDPOINT_COLUMN) as [
      keyof typeof ENDPOINT_COLUMN,
      string,
    ][]) {
      if (changes[field] === undefined) continue;
      values.push(changes[field]);
      sets.push(`${column} = $${values.length}`);
    }
    if (!sets.length) throw new Error('updateEndpoint: no change to make');
    await manager.query(
      `UPDATE visitor.webhook_endpoint SET ${sets.join(', ')} WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      values,
    );
    const found = await this.findEndpoint(tenant, id, manager);
    if (!found) throw new Error(`endpoint ${id} vanished during update`);
    return found;
  }

  /** Soft delete: the row stays for the delivery log; pending deliveries end as failed. */
  async deleteEndpoint(tenant: Tenant, id: string, now: Date): Promise<void> {
    assertTenant(tenant);
    await this.ds.transaction(async (m) => {
      await m.query(
        `UPDATE visitor.webhook_endpoint SET deleted_at = $4, updated_at = $4 WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
        [id, tenant.organisationId, tenant.livemode, now],
      );
      await m.query(
        `UPDATE visitor.webhook_delivery SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint deleted', updated_at = $4
          WHERE endpoint_id = $1 AND organisation_id = $2 AND livemode = $3 AND status = 'pending'`,
        [id, tenant.organisationId, tenant.livemode, now],
      );
    });
  }

  /**
   * Claims deliveries for one attempt each (so two workers never send one at once) and returns what the attempts
   * need — delivery, event body, endpoint — in one statement: the named ones that are due (`ids`), or up to `limit`
   * of the due ones, oldest first, skipping rows another claim has locked right now (`limit`: a worker's batch).
   * Not due, not pending, held or claimed by someone else: not returned. When the organisation is in live mode on
   * a plan without webhooks, a delivery is held instead (`held`: no lock, no attempt; the sweeper resumes it when
   * the plan returns). A `limit` is rounded down to a claim size (`claimSize`).
   */
  async claim(of: ClaimOf, now: Date, lockMs: number): Promise<ClaimedDelivery[]> {
    const byIds = 'ids' in of;
    const { name, text } = claimStatement(byIds ? null : claimSize(of.limit));
    const rows = await this.prepared<ClaimRow>(
      name,
      text,
      byIds ? [now, String(lockMs), WEBHOOK_PLANS, of.ids] : [now, String(lockMs), WEBHOOK_PLANS],
    );
    return rows.map((r) => ({
      delivery: { id: r.id, eventId: r.event_id, attemptCount: r.attempt_count },
      held: r.held,
      body: r.body,
      endpoint: {
        id: r.endpoint_id,
        organisationId: r.organisation_id,
        livemode: r.livemode,
        url: r.url,
        status: r.status,
        disabledReason: r.disabled_reason,
        deletedAt: r.deleted_at,
        secretSealed: r.secret_sealed,
        previousSecretSealed: r.previous_secret_sealed,
        previousSecretExpiresAt: r.previous_secret_expires_at,
      },
    }));
  }

  /**
   * Stores attempts and moves their deliveries and endpoints on, in one statement (one round trip, atomic) for
   * any number of outcomes. An endpoint's outcomes are taken in the order they were attempted: a failure starts
   * its `failing_since` (if not already), a success clears it; when `failing_since` is older than `disableAfterMs`
   * at its latest failure the endpoint is disabled (`failing`). Returns the endpoints this disabled.
   */
  async recordOutcome(
    outcome: AttemptOutcome | readonly AttemptOutcome[],
    disableAfterMs: number,
  ): Promise<string[]> {
    const outcomes = 'deliveryId' in outcome ? [outcome] : outcome;
    if (!outcomes.length) return [];
    const column = <K extends keyof AttemptOutcome>(k: K) => outcomes.map((o) => o[k]);
    // The endpoint's new failing_since: failures since its latest success in this batch (or since before it).
    const failing = `CASE WHEN s.last_success IS NULL THEN COALESCE(ep.failing_since, s.failing_from) ELSE s.failing_from END`;
    const disable = `(s.last_failure IS NOT NULL AND ${failing} <= s.last_failure - ($12 || ' milliseconds')::interval)`;
    const rows = await this.prepared<{ id: string }>(
      'webhook_outcomes',
      `WITH o AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::timestamptz[], $6::timestamptz[],
                              $7::int[], $8::int[], $9::text[], $10::text[], $11::boolean[])
           AS o(delivery_id, endpoint_id, attempt_number, status, next_attempt_at, attempted_at, status_code,
                duration_ms, error, excerpt, succeeded)
       ), delivery AS (
         UPDATE visitor.webhook_delivery d
            SET attempt_count = o.attempt_number, status = o.status, next_attempt_at = o.next_attempt_at,
                locked_until = NULL, last_attempt_at = o.attempted_at, last_status_code = o.status_code,
                last_error = o.error, updated_at = o.attempted_at,
                first_failure_at = CASE WHEN o.succeeded THEN d.first_failure_at ELSE COALESCE(d.first_failure_at, o.attempted_at) END
           FROM o WHERE d.id = o.delivery_id
         RETURNING d.id
       ), kept AS (
         -- The outcomes of the deliveries just updated (so existing, and locked until commit): one of a delivery
         -- deleted meanwhile (sandbox reset, retention) records no attempt (webhook_attempt has no foreign key) and
         -- does not move its endpoint's failure clock.
         SELECT o.* FROM o JOIN delivery u ON u.id = o.delivery_id
       ), attempt AS (
         INSERT INTO visitor.webhook_attempt (delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_excerpt)
         SELECT delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, excerpt FROM kept
       ), s AS (
         SELECT b.endpoint_id, b.last_success, b.last_failure,
                (SELECT min(f.attempted_at) FROM kept f
                  WHERE f.endpoint_id = b.endpoint_id AND NOT f.succeeded
                    AND (b.last_success IS NULL OR f.attempted_at > b.last_success)) AS failing_from
           FROM (SELECT endpoint_id, max(attempted_at) FILTER (WHERE succeeded) AS last_success,
                        max(attempted_at) FILTER (WHERE NOT succeeded) AS last_failure
                   FROM kept GROUP BY endpoint_id) b
       ), endpoint AS (
         UPDATE visitor.webhook_endpoint ep
            SET failing_since = ${failing},
                status = CASE WHEN ${disable} THEN 'disabled' ELSE ep.status END,
                disabled_reason = CASE WHEN ${disable} THEN 'failing' ELSE ep.disabled_reason END
           FROM s
          WHERE ep.id = s.endpoint_id AND ep.status = 'enabled'
            AND (ep.failing_since IS DISTINCT FROM ${failing} OR ${disable})
          RETURNING ep.id, ep.status
       )
       SELECT id FROM endpoint WHERE status = 'disabled'`,
      [
        column('deliveryId'),
        column('endpointId'),
        column('attemptNumber'),
        outcomes.map((o) => (o.succeeded ? 'succeeded' : o.nextAttemptAt ? 'pending' : 'failed')),
        column('nextAttemptAt'),
        column('attemptedAt'),
        column('statusCode'),
        column('durationMs'),
        column('error'),
        column('excerpt'),
        column('succeeded'),
        String(disableAfterMs),
      ],
    );
    return rows.map((r) => r.id);
  }

  /** Deliveries that can no longer be attempted (endpoint disabled or deleted) end as failed, each with its reason. */
  async abandon(deliveries: { id: string; reason: string }[], now: Date): Promise<void> {
    if (!deliveries.length) return;
    await this.ds.query(
      `UPDATE visitor.webhook_delivery d
          SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, held_since = NULL, last_error = a.reason,
              updated_at = $3
         FROM unnest($1::text[], $2::text[]) AS a(id, reason)
        WHERE d.id = a.id`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.reason), now],
    );
  }

  /** Due (or soon due) pending deliveries not claimed by a live worker and not held, oldest first. */
  dueDeliveries(now: Date, horizonMs: number, limit: number): Promise<DueDelivery[]> {
    return this.ds.query(
      `SELECT id, attempt_count, next_attempt_at, locked_until FROM visitor.webhook_delivery
        WHERE status = 'pending' AND held_since IS NULL
          AND next_attempt_at <= $1::timestamptz + ($2 || ' milliseconds')::interval
          AND (locked_until IS NULL OR locked_until < $1)
        ORDER BY next_attempt_at LIMIT $3`,
      [now, String(horizonMs), limit],
    ) as Promise<DueDelivery[]>;
  }

  /**
   * Releases the held deliveries of organisations whose plan includes webhooks again: they become due at their
   * old `next_attempt_at` (already past, for most) and keep their attempt count. Their endpoints' failure clocks
   * restart: the days of the lapse, when nothing could be attempted, do not count toward auto-disable.
   * Returns the resumed deliveries, at most `limit` (their jobs ended when they were held: the caller enqueues
   * them).
   */
  async resumeHeld(now: Date, limit: number): Promise<DueDelivery[]> {
    return (await this.ds.query(
      `WITH resumed AS (
         UPDATE visitor.webhook_delivery SET held_since = NULL, updated_at = $1
          WHERE id IN (
            SELECT d.id FROM visitor.webhook_delivery d
             WHERE d.status = 'pending' AND d.held_since IS NOT NULL
               AND NOT ${lapsed('d.livemode', '(SELECT o.plan FROM published.organisations_plan o WHERE o.id = d.organisation_id)', '$2')}
             LIMIT $3 FOR UPDATE SKIP LOCKED)
          RETURNING id, endpoint_id, attempt_count, next_attempt_at
       ), restarted AS (
         UPDATE visitor.webhook_endpoint SET failing_since = NULL
          WHERE id IN (SELECT endpoint_id FROM resumed) AND failing_since IS NOT NULL
       )
       SELECT id, attempt_count, next_attempt_at, NULL::timestamptz AS locked_until FROM resumed`,
      [now, WEBHOOK_PLANS, limit],
    )) as DueDelivery[];
  }

  /** Endpoints of the tenant (deleted ones excluded), oldest first, keyset-paged. */
  listEndpoints(tenant: Tenant, limit: number, after?: CreatedAfter): Promise<WebhookEndpointRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    if (after) values.push(new Date(after.createdAt), after.id);
    values.push(limit);
    return rows<WebhookEndpointRow>(
      this.ds,
      `SELECT ${ENDPOINT_COLUMNS} FROM visitor.webhook_endpoint
        WHERE organisation_id = $1 AND livemode = $2 AND deleted_at IS NULL${after ? ' AND (created_at, id) > ($3, $4)' : ''}
        ORDER BY created_at, id LIMIT $${values.length}`,
      values,
    );
  }

  /** Deliveries of an endpoint of the organisation (any mode: the console sees both), newest first. */
  deliveriesOfEndpoint(
    organisationId: string,
    endpointId: string,
    limit: number,
    before?: CreatedAfter,
  ): Promise<WebhookDeliveryRow[]> {
    const values: unknown[] = [endpointId, organisationId];
    if (before) values.push(new Date(before.createdAt), before.id);
    values.push(limit);
    return rows<WebhookDeliveryRow>(
      this.ds,
      `SELECT ${DELIVERY_COLUMNS} FROM visitor.webhook_delivery
        WHERE endpoint_id = $1 AND organisation_id = $2${before ? ' AND (created_at, id) < ($3, $4)' : ''}
        ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
  }

  /** An endpoint of the organisation in either mode (console), deleted ones included (their log stays). */
  endpointOfOrganisation(organisationId: string, id: string): Promise<WebhookEndpointRow | null> {
    return row<WebhookEndpointRow>(
      this.ds,
      `SELECT ${ENDPOINT_COLUMNS} FROM visitor.webhook_endpoint WHERE id = $1 AND organisation_id = $2`,
      [id, organisationId],
    );
  }

  /** A delivery, limited to one organisation unless `organisationId` is null (support staff). */
  findDelivery(organisationId: string | null, id: string): Promise<WebhookDeliveryRow | null> {
    return row<WebhookDeliveryRow>(
      this.ds,
      `SELECT ${DELIVERY_COLUMNS} FROM visitor.webhook_delivery
        WHERE id = $1 AND ($2::text IS NULL OR organisation_id = $2)`,
      [id, organisationId],
    );
  }

  /**
   * Makes a delivery due again now (console retry) unless it is already being attempted; its attempt count
   * goes on, and a manual retry that fails schedules nothing more. Returns the delivery, or null when a worker
   * holds it right now.
   */
  async retryDelivery(id: string, now: Date): Promise<WebhookDeliveryRow | null> {
    const { rows: updated } = await change<{ id: string }>(
      this.ds,
      `UPDATE visitor.webhook_delivery SET status = 'pending', next_attempt_at = $2, held_since = NULL, updated_at = $2
        WHERE id = $1 AND (status <> 'pending' OR locked_until IS NULL OR locked_until < $2) RETURNING id`,
      [id, now],
    );
    if (!updated.length) return null;
    return (await this.findDelivery(null, id))!;
  }

  deliveriesOfEvent(eventId: string): Promise<WebhookDeliveryRow[]> {
    return rows<WebhookDeliveryRow>(
      this.ds,
      `SELECT ${DELIVERY_COLUMNS} FROM visitor.webhook_delivery WHERE event_id = $1 ORDER BY created_at, id`,
      [eventId],
    );
  }

  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]> {
    return rows<WebhookAttemptRow>(
      this.ds,
      `SELECT ${ATTEMPT_COLUMNS} FROM visitor.webhook_attempt WHERE delivery_id = $1 ORDER BY attempt_number`,
      [deliveryId],
    );
  }

  /**
   * Attempts to an endpoint of the organisation made since `since`, and how many got a 2xx (the console's success
   * rate). Deliveries older than the retry span plus a day cannot have attempts in the window, so only younger
   * ones are joined (the endpoint index).
   */
  async attemptOutcomes(
    organisationId: string,
    endpointId: string,
    since: Date,
  ): Promise<{ total: number; succeeded: number }> {
    const r = await row<{ total: number; succeeded: number }>(
      this.ds,
      `SELECT count(*)::int AS total,
              (count(*) FILTER (WHERE a.status_code BETWEEN 200 AND 299))::int AS succeeded
         FROM visitor.webhook_delivery d JOIN visitor.webhook_attempt a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $2 AND d.organisation_id = $1
          AND d.created_at >= $3::timestamptz - interval '7 days' AND a.attempted_at >= $3`,
      [organisationId, endpointId, since],
    );
    return r ?? { total: 0, succeeded: 0 };
  }

  /**
   * Erasure's step here (`WebhookDeliveriesService.eraseVisitor`): the receivers' answers to the tenant's events
   * `eventIds` (those naming the person or one of their records) are dropped.
   */
  async eraseExcerpts(m: EntityManager, tenant: Tenant, eventIds: string[]): Promise<void> {
    assertTenant(tenant);
    if (!eventIds.length) return;
    await m.query(
      `UPDATE visitor.webhook_attempt a SET response_excerpt = NULL
         FROM visitor.webhook_delivery d
        WHERE a.delivery_id = d.id AND a.response_excerpt IS NOT NULL
          AND d.organisation_id = $1 AND d.livemode = $2 AND d.event_id = ANY($3::text[])`,
      [tenant.organisationId, tenant.livemode, eventIds],
    );
  }
}
