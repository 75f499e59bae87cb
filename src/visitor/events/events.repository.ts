import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { change, row, rows } from '../../database/sql';
import { preparedQuery } from '../../database/prepared';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { CreatedAfter } from '../platform/pagination';
import {
  aboutRecordsSql,
  aboutVisitorSql,
  Erasure,
  erasedBookingSql,
  erasedVisitSql,
  readableJsonbSql,
  HoldsVisitorData,
  VisitorDataHolder,
} from '../platform/visitor-data';
import { assertTenant, Tenant } from '../platform/tenant';
import { seedIdSql } from '../../seed/seed-id';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

/** One recorded event; `body` is the exact JSON sent to receivers (kept as text so retries send the same bytes). */
export interface EventRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  type: string;
  createdAt: Date;
  body: string;
}

const COLUMNS = `id, organisation_id AS "organisationId", livemode, type, created_at AS "createdAt", body`;

export interface EventFilter {
  /** The types the reader may see (`readableEventTypes`): events of other types are not there for it. */
  readable: readonly string[];
  type?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only events about this object (`data.object.id`): a visit's timeline in the console. */
  objectId?: string;
  /** Only events recorded while this request ran (`request_id`): the console's request log. */
  requestId?: string;
}

/** The events of one transaction and tenant, in one statement: $1, $2 the tenant; the rest one array per column. */
const INSERT_EVENTS = `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body, request_id)
  SELECT x.id, $1, $2, x.type, x.created_at, x.body, x.request_id
    FROM unnest($3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[])
         WITH ORDINALITY x(id, type, created_at, body, request_id, n)
   ORDER BY x.n`;

/** The event table (the outbox's first half): written in the caller's transaction, read by /v1/events. */
@Injectable()
@HoldsVisitorData(30)
@HoldsSandboxData(40)
export class EventsRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's events (their webhook deliveries and attempts with them). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.event WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  /**
   * Writes events of one tenant in the caller's transaction, in their order, each with the id of the request that
   * recorded it (null outside one). One prepared statement, written to the transaction's connection when called
   * (see `EventsService.record`).
   */
  async insert(
    m: EntityManager,
    tenant: Tenant,
    rows: readonly (Omit<EventRow, 'organisationId' | 'livemode'> & { requestId: string | null })[],
  ): Promise<void> {
    assertTenant(tenant);
    const values = [
      tenant.organisationId,
      tenant.livemode,
      rows.map((r) => r.id),
      rows.map((r) => r.type),
      rows.map((r) => r.createdAt),
      rows.map((r) => r.body),
      rows.map((r) => r.requestId),
    ];
    // A test-mode event also tells the event streams of every instance (src/visitor/event-stream), on commit.
    if (tenant.livemode) await preparedQuery(m, 'event_insert_many', INSERT_EVENTS, values);
    else
      await preparedQuery(
        m,
        'event_insert_many_notify',
        `WITH e AS (${INSERT_EVENTS} RETURNING organisation_id || ' ' || id AS note) SELECT pg_notify('gatehouse_event', note) FROM e`,
        values,
      );
  }

  /**
   * The bulk seeder's events (`gatehouse seed --scale N`): one INSERT … SELECT of envelopes as `record` writes
   * them, each event's id derived from its `key` (seeding again adds none). Returns how many were new.
   */
  async seedBulk(
    events: {
      key: string;
      organisationId: string;
      livemode: boolean;
      type: string;
      createdAt: Date;
      object: string;
    }[],
  ): Promise<number> {
    const iso = `to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const inserted = await rows<unknown>(
      this.ds,
      `INSERT INTO visitor.event (id, organisation_id, livemode, type, created_at, body)
       SELECT e.id, e.org, e.live, e.type, e.at,
              json_build_object('id', e.id, 'type', e.type, 'created_at', ${iso}, 'organisation_id', e.org,
                                'livemode', e.live, 'data', json_build_object('object', e.object::json))::text
         FROM (SELECT ${seedIdSql('evt', 'x.key')} AS id, x.*
                 FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::timestamptz[], $6::text[])
                      x(key, org, live, type, at, object)) e
       ON CONFLICT (id) DO NOTHING RETURNING 1`,
      [
        events.map((e) => e.key),
        events.map((e) => e.organisationId),
        events.map((e) => e.livemode),
        events.map((e) => e.type),
        events.map((e) => e.createdAt),
        events.map((e) => e.object),
      ],
    );
    await this.ds.query(`ANALYZE visitor.event`);
    return inserted.length;
  }

  /**
   * Events of the tenant created at or after `since` (the retention window: older events are gone for every
   * reader even before the hourly purge deletes them) of the types the reader may see, newest first, with the
   * filters of GET /v1/events. Both limits are in the statement, so pages and cursors see only those events.
   */
  list(
    tenant: Tenant,
    since: Date,
    f: EventFilter,
    limit: number,
    before?: CreatedAfter,
  ): Promise<EventRow[]> {
    assertTenant(tenant);
    const values: unknown[] = [tenant.organisationId, tenant.livemode, since, f.readable];
    const where = ['organisation_id = $1 AND livemode = $2 AND created_at >= $3 AND type = ANY($4)'];
    const add = (sql: (n: number) => string, ...v: unknown[]) => {
      values.push(...v);
      where.push(sql(values.length - v.length + 1));
    };
    if (f.type) add((n) => `type = $${n}`, f.type);
    if (f.createdAfter) add((n) => `created_at > $${n}`, f.createdAfter);
    if (f.createdBefore) add((n) => `created_at < $${n}`, f.createdBefore);
    if (f.objectId) add((n) => `(body::jsonb #>> '{data,object,id}') = $${n}`, f.objectId);
    if (f.requestId) add((n) => `request_id = $${n}`, f.requestId);
    if (before) add((n) => `(created_at, id) < ($${n}, $${n + 1})`, new Date(before.createdAt), before.id);
    values.push(limit);
    return rows<EventRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.event WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
  }

  /** The tenant's event, if it was created at or after `since` (the retention window) and is of a `readable` type. */
  find(tenant: Tenant, id: string, since: Date, readable: readonly string[]): Promise<EventRow | null> {
    assertTenant(tenant);
    return row<EventRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.event
        WHERE id = $1 AND organisation_id = $2 AND livemode = $3 AND created_at >= $4 AND type = ANY($5)`,
      [id, tenant.organisationId, tenant.livemode, since, readable],
    );
  }

  /** Deletes events created before `before` (their deliveries and attempts go with them); returns how many. */
  /** Test helper: the tenant's event `id` now reads as created at `at`. */
  async backdate(m: EntityManager, tenant: Tenant, id: string, at: Date): Promise<void> {
    assertTenant(tenant);
    await change(
      m,
      `UPDATE visitor.event SET created_at = $4 WHERE organisation_id = $1 AND livemode = $2 AND id = $3`,
      [tenant.organisationId, tenant.livemode, id, at],
    );
  }

  async purgeBefore(before: Date): Promise<number> {
    const { affected } = await change(this.ds, `DELETE FROM visitor.event WHERE created_at < $1`, [before]);
    return Number(affected ?? 0);
  }

  /**
   * Erasure: event payloads about the visitor keep the visit snapshot's ids and statuses; the visitor's details,
   * answers, purpose and the reasons given on cancel and on a decision go. Events carrying one of the person's
   * bookings (the booking ids earlier holders added to the erasure: bookings run before events) lose the
   * attendee's details, answers and the decline and cancel reasons. Only bodies that mention one of the bookings
   * are read as jsonb, with lone-surrogate escapes mended, so one unreadable body elsewhere in the organisation
   * cannot block the erasure (as aboutVisitorSql does for visits).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.event SET body = (${erasedVisitSql(readableJsonbSql('body'), '{data,object}')})::text
        WHERE organisation_id = $2 AND livemode = $3 AND ${aboutVisitorSql('body', '{data,object}')}`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
    const bookings = relatedIds.filter((id) => id.startsWith('booking_'));
    if (!bookings.length) return;
    await uow.manager.query(
      `UPDATE visitor.event
          SET body = (${erasedBookingSql(readableJsonbSql('body'), '{data,object}')})::text
        WHERE organisation_id = $2 AND livemode = $3 AND type LIKE 'booking.%'
          AND ${aboutRecordsSql('body', '{data,object}', '$1')}`,
      [bookings, tenant.organisationId, tenant.livemode],
    );
  }

  /**
   * Ids of the tenant's events whose body mentions one of `texts` anywhere (erasure: webhooks drop the receivers'
   * answers to those events).
   */
  async idsMentioning(m: EntityManager, tenant: Tenant, texts: string[]): Promise<string[]> {
    assertTenant(tenant);
    if (!texts.length) return [];
    const found = await rows<{ id: string }>(
      m,
      `SELECT id FROM visitor.event
        WHERE organisation_id = $1 AND livemode = $2
          AND EXISTS (SELECT 1 FROM unnest($3::text[]) AS t(s) WHERE strpos(body, t.s) > 0)`,
      [tenant.organisationId, tenant.livemode, texts],
    );
    return found.map((r) => r.id);
  }
}
