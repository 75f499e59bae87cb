import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { CreatedAfter } from '../platform/pagination';
import { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from './webhook.entity';
import { EXPLICIT_ONLY_EVENT_TYPES } from '../events/event-types';
import { assertTenant, Tenant } from '../platform/tenant';
import { PLAN_RULES, PLANS } from '../platform/plans';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import { change } from '../../database/sql';

export type { Tenant };

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

/** Events, endpoints, deliveries and attempts: the only place the webhook engine talks to TypeORM. */
@Injectable()
@HoldsVisitorData(20)
export class WebhooksRepository implements VisitorDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The delivery hot path (claim, outcome) uses named prepared statements. */
  private prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.ds, name, text, values);
  }

  /**
   * One pending delivery of a just-recorded event per enabled endpoint of its mode subscribed to its type, in one
   * statement (every change of the API records events, so this is a hot path); returns the delivery ids.
   * The subscription rule is `subscribed`: `*` covers every type but EXPLICIT_ONLY_EVENT_TYPES (watchlist.matched). Delivery ids are `dlv_` + 122 random bits (base64url-like).
   * `dueAt` (the wall clock, not the event's ticked `created_at`, which may run a few ms ahead of it) is when
   * the first attempt is due, so the job enqueued after commit finds the delivery due when it runs.
   */
  async insertDeliveriesOfEvent(
    m: EntityManager,
    tenant: Tenant,
    event: { id: string; type: string; createdAt: Date },
    dueAt: Date,
  ): Promise<string[]> {
    assertTenant(tenant);
    const rows: { id: string }[] = await m.query(
      `INSERT INTO visitor.webhook_delivery (id, organisation_id, livemode, event_id, endpoint_id, status, attempt_count,
                                             next_attempt_at, created_at, updated_at)
       SELECT 'dlv_' || translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/=', ''),
              $2, $3, $1, e.id, 'pending', 0, $6, $5, $5
         FROM visitor.webhook_endpoint e
        WHERE e.organisation_id = $2 AND e.livemode = $3 AND e.status = 'enabled' AND e.deleted_at IS NULL
          AND ${subscribed('$4', '$7')}
       RETURNING id`,
      [
        event.id,
        tenant.organisationId,
        tenant.livemode,
        event.type,
        event.createdAt,
        dueAt,
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

  insertDeliveries(m: EntityManager, rows: WebhookDeliveryRow[]): Promise<unknown> {
    return rows.length ? m.getRepository(WebhookDeliveryRow).insert(rows) : Promise.resolve();
  }

  insertEndpoint(row: WebhookEndpointRow, manager: EntityManager = this.ds.manager): Promise<unknown> {
    assertTenant(row);
    return manager.getRepository(WebhookEndpointRow).insert(row);
  }

  findEndpoint(
    tenant: Tenant,
    id: string,
    manager: EntityManager = this.ds.manager,
    /** Lock the row until the end of `manager`'s transaction (a read before changing it). */
    forUpdate = false,
  ): Promise<WebhookEndpointRow | null> {
    assertTenant(tenant);
    const q = manager
      .getRepository(WebhookEndpointRow)
      .createQueryBuilder('e')
      .where('e.id = :id AND e.organisationId = :org AND e.livemode = :live AND e.deletedAt IS NULL', {
        id,
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    return (forUpdate ? q.setLock('pessimistic_write') : q).getOne();
  }

  async updateEndpoint(
    tenant: Tenant,
    id: string,
    changes: Partial<WebhookEndpointRow>,
    manager: EntityManager = this.ds.manager,
  ): Promise<WebhookEndpointRow> {
    assertTenant(tenant);
    await manager
      .getRepository(WebhookEndpointRow)
      .update({ id, organisationId: tenant.organisationId, livemode: tenant.livemode }, changes);
    const row = await this.findEndpoint(tenant, id, manager);
    if (!row) throw new Error(`endpoint ${id} vanished during update`);
    return row;
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
   * Claims a due delivery for one attempt (so two workers never send it at once) and returns what the attempt
   * needs — delivery, event body, endpoint — in one round trip; null when it is not due, not pending, held, or
   * claimed by someone else. When the organisation is in live mode on a plan without webhooks, the delivery is
   * held instead (`held`: no lock, no attempt; the sweeper resumes it when the plan returns).
   */
  async claim(deliveryId: string, now: Date, lockMs: number): Promise<ClaimedDelivery | null> {
    const rows = await this.prepared<ClaimRow>(
      'webhook_claim',
      `UPDATE visitor.webhook_delivery d
          SET locked_until = CASE WHEN ${lapsed('d.livemode', 'o.plan', '$4')} THEN NULL
                                  ELSE $2::timestamptz + ($3 || ' milliseconds')::interval END,
              held_since = CASE WHEN ${lapsed('d.livemode', 'o.plan', '$4')} THEN $2 END,
              updated_at = $2
         FROM visitor.event e
         JOIN visitor.webhook_endpoint ep ON true
         LEFT JOIN visitor.organisation o ON o.id = ep.organisation_id
        WHERE d.id = $1 AND e.id = d.event_id AND ep.id = d.endpoint_id
          -- Inside CASE so the planner finds the row by its primary key: written plainly, these conditions
          -- match the partial due index, which a plan with stale statistics scans through the whole backlog.
          AND CASE WHEN d.held_since IS NULL AND d.status = 'pending' AND d.next_attempt_at <= $2
                        AND (d.locked_until IS NULL OR d.locked_until < $2) THEN true ELSE false END
      RETURNING d.id, d.event_id, d.attempt_count, e.body, ep.id AS endpoint_id, ep.organisation_id, ep.livemode, ep.url, ep.status, ep.disabled_reason,
                ep.deleted_at, ep.secret_sealed, ep.previous_secret_sealed, ep.previous_secret_expires_at,
                d.held_since IS NOT NULL AS held`,
      [deliveryId, now, String(lockMs), WEBHOOK_PLANS],
    );
    const r = rows[0];
    if (!r) return null;
    return {
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
    };
  }

  /**
   * Stores an attempt and moves the delivery and its endpoint on, in one statement (one round trip, atomic).
   * On failure the endpoint's `failing_since` starts (if not already); when it is older than `disableAfterMs`
   * the endpoint is disabled (`failing`) and `disabledEndpoint` is true. A success clears `failing_since`.
   */
  async recordOutcome(o: AttemptOutcome, disableAfterMs: number): Promise<{ disabledEndpoint: boolean }> {
    const status = o.succeeded ? 'succeeded' : o.nextAttemptAt ? 'pending' : 'failed';
    const rows = await this.prepared<{ status: string }>(
      'webhook_outcome',
      `WITH attempt AS (
         INSERT INTO visitor.webhook_attempt (delivery_id, attempt_number, attempted_at, status_code, duration_ms, error, response_excerpt)
         VALUES ($1, $3, $6, $7, $8, $9, $10)
       ), delivery AS (
         UPDATE visitor.webhook_delivery
            SET attempt_count = $3, status = $4, next_attempt_at = $5, locked_until = NULL, last_attempt_at = $6,
                last_status_code = $7, last_error = $9, updated_at = $6,
                first_failure_at = CASE WHEN $11 THEN first_failure_at ELSE COALESCE(first_failure_at, $6) END
          WHERE id = $1
       ), endpoint AS (
         UPDATE visitor.webhook_endpoint
            SET failing_since = CASE WHEN $11 THEN NULL ELSE COALESCE(failing_since, $6) END,
                status = CASE WHEN NOT $11 AND COALESCE(failing_since, $6) <= $6::timestamptz - ($12 || ' milliseconds')::interval THEN 'disabled' ELSE status END,
                disabled_reason = CASE WHEN NOT $11 AND COALESCE(failing_since, $6) <= $6::timestamptz - ($12 || ' milliseconds')::interval THEN 'failing' ELSE disabled_reason END
          WHERE id = $2 AND status = 'enabled' AND (NOT $11 OR failing_since IS NOT NULL)
          RETURNING status
       )
       SELECT status FROM endpoint`,
      [
        o.deliveryId,
        o.endpointId,
        o.attemptNumber,
        status,
        o.nextAttemptAt,
        o.attemptedAt,
        o.statusCode,
        o.durationMs,
        o.error,
        o.excerpt,
        o.succeeded,
        String(disableAfterMs),
      ],
    );
    return { disabledEndpoint: !o.succeeded && rows[0]?.status === 'disabled' };
  }

  /** A delivery that can no longer be attempted (endpoint disabled or deleted) ends as failed. */
  async abandon(deliveryId: string, now: Date, reason: string): Promise<void> {
    await this.ds.query(
      `UPDATE visitor.webhook_delivery SET status = 'failed', next_attempt_at = NULL, locked_until = NULL, held_since = NULL, last_error = $3, updated_at = $2 WHERE id = $1`,
      [deliveryId, now, reason],
    );
  }

  /**
   * Due (or soon due) pending deliveries not claimed by a live worker and not held, oldest first.
   * `expiredClaimsOnly`: only those whose worker died mid-attempt (the caller knows the queue holds the rest).
   */
  dueDeliveries(
    now: Date,
    horizonMs: number,
    limit: number,
    expiredClaimsOnly = false,
  ): Promise<DueDelivery[]> {
    return this.ds.transaction(
      async (m) =>
        (await m.query(
          `SELECT id, attempt_count, next_attempt_at, locked_until FROM visitor.webhook_delivery
          WHERE status = 'pending' AND held_since IS NULL
            AND next_attempt_at <= $1::timestamptz + ($2 || ' milliseconds')::interval
            AND ${expiredClaimsOnly ? 'locked_until < $1' : '(locked_until IS NULL OR locked_until < $1)'}
          ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
          [now, String(horizonMs), limit],
        )) as DueDelivery[],
    );
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
               AND NOT ${lapsed('d.livemode', '(SELECT o.plan FROM visitor.organisation o WHERE o.id = d.organisation_id)', '$2')}
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
    const q = this.ds
      .getRepository(WebhookEndpointRow)
      .createQueryBuilder('e')
      .where('e.organisationId = :org AND e.livemode = :live AND e.deletedAt IS NULL', {
        org: tenant.organisationId,
        live: tenant.livemode,
      });
    if (after)
      q.andWhere('(e.createdAt, e.id) > (:at, :id)', { at: new Date(after.createdAt), id: after.id });
    return q.orderBy('e.createdAt', 'ASC').addOrderBy('e.id', 'ASC').limit(limit).getMany();
  }

  /** Deliveries of an endpoint of the organisation (any mode: the console sees both), newest first. */
  deliveriesOfEndpoint(
    organisationId: string,
    endpointId: string,
    limit: number,
    before?: CreatedAfter,
  ): Promise<WebhookDeliveryRow[]> {
    const q = this.ds
      .getRepository(WebhookDeliveryRow)
      .createQueryBuilder('d')
      .where('d.endpointId = :ep AND d.organisationId = :org', { ep: endpointId, org: organisationId });
    if (before)
      q.andWhere('(d.createdAt, d.id) < (:at, :id)', { at: new Date(before.createdAt), id: before.id });
    return q.orderBy('d.createdAt', 'DESC').addOrderBy('d.id', 'DESC').limit(limit).getMany();
  }

  /** An endpoint of the organisation in either mode (console), deleted ones included (their log stays). */
  endpointOfOrganisation(organisationId: string, id: string): Promise<WebhookEndpointRow | null> {
    return this.ds.getRepository(WebhookEndpointRow).findOne({ where: { id, organisationId } });
  }

  /** A delivery, limited to one organisation unless `organisationId` is null (support staff). */
  findDelivery(organisationId: string | null, id: string): Promise<WebhookDeliveryRow | null> {
    return this.ds
      .getRepository(WebhookDeliveryRow)
      .findOne({ where: organisationId ? { id, organisationId } : { id } });
  }

  /**
   * Makes a delivery due again now (console retry) unless it is already being attempted; its attempt count
   * goes on, and a manual retry that fails schedules nothing more. Returns the delivery, or null when a worker
   * holds it right now.
   */
  async retryDelivery(id: string, now: Date): Promise<WebhookDeliveryRow | null> {
    const { rows } = await change<{ id: string }>(
      this.ds,
      `UPDATE visitor.webhook_delivery SET status = 'pending', next_attempt_at = $2, held_since = NULL, updated_at = $2
        WHERE id = $1 AND (status <> 'pending' OR locked_until IS NULL OR locked_until < $2) RETURNING id`,
      [id, now],
    );
    if (!rows.length) return null;
    return this.ds.getRepository(WebhookDeliveryRow).findOneByOrFail({ id });
  }

  deliveriesOfEvent(eventId: string): Promise<WebhookDeliveryRow[]> {
    return this.ds
      .getRepository(WebhookDeliveryRow)
      .find({ where: { eventId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  attemptsOf(deliveryId: string): Promise<WebhookAttemptRow[]> {
    return this.ds
      .getRepository(WebhookAttemptRow)
      .find({ where: { deliveryId }, order: { attemptNumber: 'ASC' } });
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
    const [r] = (await this.ds.query(
      `SELECT count(*)::int AS total,
              (count(*) FILTER (WHERE a.status_code BETWEEN 200 AND 299))::int AS succeeded
         FROM visitor.webhook_delivery d JOIN visitor.webhook_attempt a ON a.delivery_id = d.id
        WHERE d.endpoint_id = $2 AND d.organisation_id = $1
          AND d.created_at >= $3::timestamptz - interval '7 days' AND a.attempted_at >= $3`,
      [organisationId, endpointId, since],
    )) as { total: number; succeeded: number }[];
    return r;
  }

  /**
   * Erasure: a receiver's answer may echo the payload it was sent, so the excerpt of every attempt to deliver an
   * event that names the person or one of their records (the visitor's id, `relatedIds`: their visits and
   * bookings) is dropped, whatever the event's type. Only the organisation's events are searched.
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.webhook_attempt a SET response_excerpt = NULL
         FROM visitor.webhook_delivery d JOIN visitor.event e ON e.id = d.event_id
        WHERE a.delivery_id = d.id AND a.response_excerpt IS NOT NULL
          AND e.organisation_id = $2 AND e.livemode = $3
          AND (strpos(e.body, $1) > 0
               OR EXISTS (SELECT 1 FROM unnest($4::text[]) AS r(id) WHERE strpos(e.body, r.id) > 0))`,
      [visitorId, tenant.organisationId, tenant.livemode, relatedIds],
    );
  }
}
