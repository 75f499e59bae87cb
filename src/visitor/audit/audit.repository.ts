import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

export interface AuditRow {
  id: string;
  organisation_id: string;
  livemode: boolean | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  request_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/** The audit trail; append-only. */
@Injectable()
export class AuditRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(m: EntityManager | null, r: AuditRow): Promise<void> {
    await this.insertMany(m, [r]);
  }

  /** Several rows in one statement (one round trip, one commit outside a transaction). */
  async insertMany(m: EntityManager | null, rs: readonly AuditRow[]): Promise<void> {
    if (rs.length === 0) return;
    const values: unknown[] = [];
    const tuples = rs.map((r) => {
      const at = values.length;
      values.push(
        r.id,
        r.organisation_id,
        r.livemode,
        r.action,
        r.actor_type,
        r.actor_id,
        r.target_type,
        r.target_id,
        r.ip,
        r.request_id,
        JSON.stringify(r.data),
        r.created_at,
      );
      return `(${Array.from({ length: 12 }, (_, i) => `$${at + i + 1}`).join(',')})`;
    });
    await (m ?? this.ds.manager).query(
      `INSERT INTO visitor.audit_event (id, organisation_id, livemode, action, actor_type, actor_id, target_type,
         target_id, ip, request_id, data, created_at)
       VALUES ${tuples.join(',')}`,
      values,
    );
  }

  /**
   * Newest first, keyset on (created_at, id) descending; `limit + 1` rows. Organisation-wide events (sign-ins,
   * key management: livemode null) appear in both modes' trails.
   */
  list(
    organisationId: string,
    livemode: boolean,
    f: {
      limit: number;
      since: Date | null;
      action?: string;
      before?: { createdAt: string; id: string };
      /** Only this actor (type, and id when given); the console's filter. */
      actor?: { type: string; id?: string };
      /** Only entries before this moment; the console's date filter. */
      until?: Date;
    },
  ): Promise<AuditRow[]> {
    const params: unknown[] = [organisationId, livemode, f.limit + 1];
    const where: string[] = [];
    if (f.since) {
      params.push(f.since);
      where.push(`created_at >= $${params.length}`);
    }
    if (f.action) {
      params.push(f.action);
      where.push(`action = $${params.length}`);
    }
    if (f.actor) {
      params.push(f.actor.type);
      where.push(`actor_type = $${params.length}`);
      if (f.actor.id) {
        params.push(f.actor.id);
        where.push(`actor_id = $${params.length}`);
      }
    }
    if (f.until) {
      params.push(f.until);
      where.push(`created_at < $${params.length}`);
    }
    if (f.before) {
      params.push(f.before.createdAt, f.before.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`);
    }
    return this.ds.query(
      `SELECT * FROM visitor.audit_event
        WHERE organisation_id = $1 AND (livemode = $2 OR livemode IS NULL) ${where.map((w) => `AND ${w}`).join(' ')}
        ORDER BY created_at DESC, id DESC LIMIT $3`,
      params,
    );
  }

  /** The organisation's rows written by one request (received from `from` to `to`: the index range). */
  ofRequest(organisationId: string, requestId: string, from: Date, to: Date): Promise<AuditRow[]> {
    return this.ds.query(
      `SELECT * FROM visitor.audit_event
        WHERE organisation_id = $1 AND created_at >= $3 AND created_at <= $4 AND request_id = $2
        ORDER BY created_at, id LIMIT 100`,
      [organisationId, requestId, from, to],
    );
  }
}
