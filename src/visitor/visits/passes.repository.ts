import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { assertTenant } from '../platform/tenant';
import type { VisitStatus } from './visit-state-machine';

export interface PassRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  visit_id: string;
  channels: string[];
  status: 'pending' | 'sent' | 'failed';
  created_at: Date;
}

/** The pass page's row (PassesRepository.findPassPage). */
export interface PassPageRow {
  revoked_at: Date | null;
  livemode: boolean;
  status: VisitStatus;
  expected_at: Date | null;
  expected_until: Date | null;
  site_name: string;
  time_zone: string;
  organisation_name: string;
  host_name: string;
}

/** A visit's passes (`visitor.visit_pass`): issued, revoked, claimed by the sender, finished, shown. */
@Injectable()
export class PassesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  insertPass(m: EntityManager, p: PassRow): Promise<unknown> {
    assertTenant({ organisationId: p.organisation_id, livemode: p.livemode });
    return m.query(
      `INSERT INTO visitor.visit_pass (id, organisation_id, livemode, visit_id, channels, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [p.id, p.organisation_id, p.livemode, p.visit_id, p.channels, p.status, p.created_at],
    );
  }

  /** Earlier passes of a visit stop working when a new one is issued. */
  revokePasses(m: EntityManager, visitId: string, exceptId: string, now: Date): Promise<unknown> {
    return m.query(
      `UPDATE visitor.visit_pass SET revoked_at = $3 WHERE visit_id = $1 AND id <> $2 AND revoked_at IS NULL`,
      [visitId, exceptId, now],
    );
  }

  /** Claims a pending pass for sending (exactly one sender wins); null when it is not pending. */
  async claimPass(m: EntityManager, id: string): Promise<PassRow | null> {
    const rows: PassRow[] = await m.query(
      `SELECT * FROM visitor.visit_pass WHERE id = $1 AND status = 'pending' FOR UPDATE SKIP LOCKED`,
      [id],
    );
    return rows[0] ?? null;
  }

  async finishPass(
    m: EntityManager,
    id: string,
    r: { status: 'sent' | 'failed'; channel: string | null; messageId: string | null; error: string | null },
    now: Date,
  ): Promise<void> {
    await m.query(
      `UPDATE visitor.visit_pass SET status = $2, channel = $3, message_id = $4, error = $5, sent_at = $6 WHERE id = $1`,
      [id, r.status, r.channel, r.messageId, r.error, r.status === 'sent' ? now : null],
    );
  }

  /** A pass by id (for the pass link): null when unknown. */
  async findPass(id: string): Promise<(PassRow & { revoked_at: Date | null }) | null> {
    const rows: (PassRow & { revoked_at: Date | null })[] = await this.ds.query(
      `SELECT * FROM visitor.visit_pass WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * What the pass page shows of a pass (no tenant: the signed token is the credential): the pass's own state,
   * the visit's status and times, the site, the organisation and the host's name (one statement: the last three
   * through the views their domains publish). Null when the pass is unknown.
   */
  async findPassPage(id: string): Promise<PassPageRow | null> {
    const rows: PassPageRow[] = await this.ds.query(
      `SELECT p.revoked_at, p.livemode, v.status, v.expected_at, v.expected_until,
              s.name AS site_name, s.time_zone, o.name AS organisation_name, h.name AS host_name
         FROM visitor.visit_pass p
         JOIN visitor.visit v ON v.id = p.visit_id
         JOIN published.organisations_sites s ON s.id = v.site_id
         JOIN published.organisations_names o ON o.id = v.organisation_id
         JOIN published.people_hosts h ON h.id = v.host_id
        WHERE p.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Passes still pending a while after they were issued (their job was lost): the sweeper re-enqueues them. */
  async stalePendingPasses(olderThan: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(
      `SELECT id FROM visitor.visit_pass WHERE status = 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2`,
      [olderThan, limit],
    );
    return rows.map((r) => r.id);
  }
}
