import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, type UnitOfWork } from '../../database/unit-of-work';
import { ApiError } from '../../common/errors/api-error';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import type { Scope } from '../platform/scopes';
import type { Tenant } from '../platform/tenant';
import { EventResponse, toEventResponse } from './dto/event.response';
import type { EventsQuery } from './dto/events.query';
import { EventObject, EventType, readableEventTypes } from './event-types';
import { type EventFilter, type EventRow, EventsRepository } from './events.repository';
import { EVENT_RETENTION_DAYS } from './events.jobs';
import { queryRange } from '../../common/validation/timestamp';
import { currentRequestId } from './request-scope';

export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  organisation_id: string;
  livemode: boolean;
  data: { object: unknown };
}

/** A recorded event as subscribers see it, inside the transaction that recorded it. */
export interface RecordedEvent {
  envelope: EventEnvelope;
  tenant: Tenant;
  /** When work the event starts is due: the wall clock when it was recorded. */
  dueAt: Date;
  /** The envelope's `created_at` (ticked to keep the transaction's events in order; may run ahead of `dueAt`). */
  createdAt: Date;
}

/**
 * Something that acts on every recorded event in the recording transaction (webhooks write one delivery per
 * subscribed endpoint). Subscribers register themselves (`EventsService.subscribe`); events know none of them.
 * `onRecorded` gets the events of one tenant that the transaction recorded, in order, just before its COMMIT, and
 * writes its statements at once (`preparedQuery` on `uow.manager`, before any await): the commit waits for them
 * and happens only if they succeeded.
 */
export interface EventSubscriber {
  onRecorded(uow: UnitOfWork, tenant: Tenant, events: readonly RecordedEvent[]): Promise<void>;
}

/** An event recorded in a transaction, to be written with its COMMIT. */
interface PendingEvent extends RecordedEvent {
  body: string;
  requestId: string | null;
}

/**
 * An event body as stored: JSON.stringify writes a lone surrogate as its escape (`\ud800`), which PostgreSQL's
 * json parser refuses, so such strings are stored with U+FFFD instead and every body stays readable as jsonb.
 * Only a body whose text holds `\ud` is stringified again.
 */
export function storedJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes('\\ud')) return text;
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? v.toWellFormed() : v));
}

/**
 * The outbox. `record` writes the event in the caller's transaction and hands it to each subscriber in that same
 * transaction. `object` must already be the public response shape (with sensitive answers omitted): it is stored
 * and sent as is.
 */
@Injectable()
export class EventsService {
  private readonly subscribers: EventSubscriber[] = [];

  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
    private readonly tx: Transactions,
  ) {}

  subscribe(subscriber: EventSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** The created_at of the last event each open transaction recorded. */
  private readonly lastInTransaction = new WeakMap<UnitOfWork, Date>();
  /** The events each open transaction recorded, written with its COMMIT. */
  private readonly pending = new WeakMap<UnitOfWork, PendingEvent[]>();

  /** `type` must be catalogued (EVENT_CATALOGUE) and `object` the shape its domain declared for it (EventObjects). */
  async record<T extends EventType>(
    uow: UnitOfWork,
    tenant: Tenant,
    type: T,
    object: EventObject<T>,
  ): Promise<EventEnvelope> {
    // The first attempt is due at the wall clock: created_at below may run a millisecond ahead of it, and a
    // delivery due later than the worker's clock would wait for the sweeper instead of its job.
    const dueAt = this.clock.now();
    // Events recorded one after the other in one transaction (visit.approved, then visit.checked_in) keep
    // their order when they share a millisecond.
    const now = this.clock.after(this.lastInTransaction.get(uow));
    this.lastInTransaction.set(uow, now);
    const envelope: EventEnvelope = {
      id: newId('evt'),
      type,
      created_at: now.toISOString(),
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      data: { object },
    };
    // Written with the COMMIT, all of the transaction's events in one INSERT and one statement per subscriber
    // (a confirmed booking records three): recording costs no round trip and no statement of its own. The body is
    // the object as it is now.
    let pending = this.pending.get(uow);
    if (!pending) {
      const list: PendingEvent[] = [];
      this.pending.set(uow, list);
      uow.beforeCommit(() => this.write(uow, list));
      pending = list;
    }
    pending.push({
      envelope,
      tenant,
      dueAt,
      body: storedJson(envelope),
      createdAt: now,
      requestId: currentRequestId(),
    });
    return envelope;
  }

  /**
   * The events of a transaction about to commit, per tenant (a transaction is nearly always one tenant's): their
   * INSERT, then each subscriber's statements.
   */
  private write(uow: UnitOfWork, events: readonly PendingEvent[]): void {
    const byTenant = new Map<string, PendingEvent[]>();
    for (const e of events) {
      const key = `${e.tenant.organisationId} ${e.tenant.livemode}`;
      const same = byTenant.get(key);
      if (same) same.push(e);
      else byTenant.set(key, [e]);
    }
    for (const same of byTenant.values()) {
      const tenant = same[0].tenant;
      uow.defer(
        this.repo.insert(
          uow.manager,
          tenant,
          same.map((e) => ({
            id: e.envelope.id,
            type: e.envelope.type,
            createdAt: e.createdAt,
            body: e.body,
            requestId: e.requestId,
          })),
        ),
      );
      for (const s of this.subscribers) uow.defer(s.onRecorded(uow, tenant, same));
    }
  }

  /**
   * The bulk seeder's events, written as `record` writes them but in one statement and without subscribers (the
   * seeded organisations have no endpoints); `object` is the stored JSON of the event's object, `key` what its id
   * derives from. Returns how many were new.
   */
  seedBulk(
    events: {
      key: string;
      organisationId: string;
      livemode: boolean;
      type: EventType;
      createdAt: Date;
      object: string;
    }[],
  ): Promise<number> {
    return events.length ? this.repo.seedBulk(events) : Promise.resolve(0);
  }

  /**
   * Events of the last 30 days, newest first (GET /v1/events), of the types the caller may read with `scopes`
   * (the scopes it may use: `CurrentScopes`); a `type` it may not read gives an empty list.
   */
  list(tenant: Tenant, scopes: ReadonlySet<Scope>, q: EventsQuery): Promise<Page<EventResponse>> {
    const range = queryRange(q, 'created_after', 'created_before');
    const filter = {
      readable: readableEventTypes(scopes),
      type: q.type,
      createdAfter: range.from,
      createdBefore: range.to,
    };
    return this.cursors.codec.createdPage(
      'events',
      tenant,
      q,
      (limit, before) => this.repo.list(tenant, this.retainedSince(), filter, limit + 1, before),
      toEventResponse,
    );
  }

  /**
   * The events about one object (`data.object.id`, e.g. a visit) of the retention window that `scopes` may read,
   * oldest first (at most `limit`): the console's visit timeline.
   */
  about(tenant: Tenant, scopes: ReadonlySet<Scope>, objectId: string, limit = 100): Promise<EventResponse[]> {
    return this.oldestFirst(tenant, { readable: readableEventTypes(scopes), objectId }, limit);
  }

  /**
   * The events a request recorded (`request_id`, kept internal) of the retention window that `scopes` may read,
   * oldest first (at most `limit`): the console's request log.
   */
  ofRequest(
    tenant: Tenant,
    scopes: ReadonlySet<Scope>,
    requestId: string,
    limit = 100,
  ): Promise<EventResponse[]> {
    return this.oldestFirst(tenant, { readable: readableEventTypes(scopes), requestId }, limit);
  }

  /** The last `limit` events of the retention window that match `filter`, oldest first. */
  private async oldestFirst(tenant: Tenant, filter: EventFilter, limit: number): Promise<EventResponse[]> {
    const rows = await this.repo.list(tenant, this.retainedSince(), filter, limit);
    return rows.reverse().map(toEventResponse);
  }

  /**
   * The tenant's event, or `not_found`, also when the caller may not read its type with `scopes` (an object the
   * credential cannot see is not there for it). Redelivery finds its event here too.
   */
  async find(tenant: Tenant, scopes: ReadonlySet<Scope>, id: string): Promise<EventRow> {
    const row = await this.repo.find(tenant, id, this.retainedSince(), readableEventTypes(scopes));
    if (!row) throw ApiError.notFound(`Event ${id}`);
    return row;
  }

  /**
   * Ids of the tenant's events whose body mentions one of `texts` (the person's ids, in erasure), read in the
   * caller's transaction: webhooks drop the receivers' answers to those events.
   */
  idsMentioning(uow: UnitOfWork, tenant: Tenant, texts: string[]): Promise<string[]> {
    return this.repo.idsMentioning(uow.manager, tenant, texts);
  }

  /**
   * Test helper (POST /v1/test-helpers/events/{id}/age): the event is moved past the retention window now, as
   * time would move it after EVENT_RETENTION_DAYS: from then on it is not listed, fetched or redelivered, and the
   * daily purge deletes it. Returns the event as it was.
   */
  async ageOut(tenant: Tenant, scopes: ReadonlySet<Scope>, id: string): Promise<EventResponse> {
    const row = await this.find(tenant, scopes, id);
    // in a transaction, so an idempotent request stores its answer with the change
    return this.tx.run(async (uow) => {
      await this.repo.backdate(uow.manager, tenant, id, new Date(this.retainedSince().getTime() - 1000));
      return toEventResponse(row);
    }, IS_RESPONSE);
  }

  /** The start of the retention window: older events are listed, fetched and redelivered by no one. */
  private retainedSince(): Date {
    return new Date(this.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000);
  }
}
