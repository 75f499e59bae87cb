import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { change } from '../../database/sql';

export type ApprovalStatus = 'pending' | 'approved' | 'denied';
export type ClientSource = 'console' | 'dcr' | 'metadata_document';

export interface ApprovalRow {
  organisation_id: string;
  client_id: string;
  client_name: string;
  client_source: ClientSource;
  status: ApprovalStatus;
  requested_by: string;
  requested_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  /** The scopes the app asked for in the requests that made it wait (every one while pending). */
  requested_scopes: string[];
}

export interface ConnectionRow {
  grant_id: string;
  organisation_id: string;
  client_id: string;
  account_id: string;
  livemode: boolean;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** An access token found by its hash, with the connection (grant) it belongs to. */
export interface TokenConnectionRow extends ConnectionRow {
  scope: string | null;
  aud: string | null;
  expires_at: Date | null;
}

/**
 * Approvals and connections of OAuth apps (schema `oauth`). Every method but the token lookup takes the
 * organisation first: an organisation sees and changes only its own.
 */
@Injectable()
export class ConnectedAppsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private m(m?: EntityManager): EntityManager {
    return m ?? this.ds.manager;
  }

  async approval(organisationId: string, clientId: string, m?: EntityManager): Promise<ApprovalRow | null> {
    const rows: ApprovalRow[] = await this.m(m).query(
      `SELECT * FROM oauth.approval WHERE organisation_id = $1 AND client_id = $2`,
      [organisationId, clientId],
    );
    return rows[0] ?? null;
  }

  /**
   * Records a request; an existing row (pending, approved or denied) is kept as it is, except that a pending one
   * gains the scopes this request asks for. `inserted`: whether this call made the row (a repeated request, e.g. a
   * reload of the waiting page, did not).
   */
  async requestApproval(m: EntityManager, a: ApprovalRow): Promise<{ row: ApprovalRow; inserted: boolean }> {
    const rows: (ApprovalRow & { inserted: boolean })[] = await m.query(
      `INSERT INTO oauth.approval (organisation_id, client_id, client_name, client_source, status, requested_by,
         requested_at, decided_by, decided_at, requested_scopes)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)
       ON CONFLICT (organisation_id, client_id) DO UPDATE SET
         requested_scopes = CASE WHEN oauth.approval.status = 'pending'
           THEN ARRAY(SELECT DISTINCT s FROM unnest(oauth.approval.requested_scopes || EXCLUDED.requested_scopes) s
                       ORDER BY s)
           ELSE oauth.approval.requested_scopes END
       RETURNING *, (xmax = 0) AS inserted`,
      [
        a.organisation_id,
        a.client_id,
        a.client_name,
        a.client_source,
        a.status,
        a.requested_by,
        a.requested_at,
        a.decided_by,
        a.decided_at,
        a.requested_scopes,
      ],
    );
    const { inserted, ...row } = rows[0];
    return { row, inserted };
  }

  async decide(
    m: EntityManager,
    organisationId: string,
    clientId: string,
    status: ApprovalStatus,
    by: string,
    at: Date,
  ): Promise<ApprovalRow | null> {
    const { rows } = await change<ApprovalRow>(
      m,
      `UPDATE oauth.approval SET status = $3, decided_by = $4, decided_at = $5
          WHERE organisation_id = $1 AND client_id = $2 RETURNING *`,
      [organisationId, clientId, status, by, at],
    );
    return rows[0] ?? null;
  }

  async approvals(organisationId: string): Promise<ApprovalRow[]> {
    return this.ds.query(
      `SELECT * FROM oauth.approval WHERE organisation_id = $1 ORDER BY requested_at DESC, client_id`,
      [organisationId],
    );
  }

  async insertConnection(m: EntityManager, c: ConnectionRow): Promise<void> {
    await m.query(
      `INSERT INTO oauth.connection (grant_id, organisation_id, client_id, account_id, livemode, scopes, created_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7)`,
      [c.grant_id, c.organisation_id, c.client_id, c.account_id, c.livemode, c.scopes, c.created_at],
    );
  }

  async connections(organisationId: string, m?: EntityManager): Promise<ConnectionRow[]> {
    return this.m(m).query(
      `SELECT * FROM oauth.connection WHERE organisation_id = $1 AND revoked_at IS NULL
        ORDER BY created_at DESC, grant_id`,
      [organisationId],
    );
  }

  /**
   * Marks every live connection of the app in the organisation revoked; returns their grant ids (the service
   * ends those grants at the authorization server in the same transaction).
   */
  async revokeClient(
    m: EntityManager,
    organisationId: string,
    clientId: string,
    at: Date,
  ): Promise<string[]> {
    const { rows } = await change<{ grant_id: string }>(
      m,
      `UPDATE oauth.connection SET revoked_at = $3
          WHERE organisation_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING grant_id`,
      [organisationId, clientId, at],
    );
    return rows.map((r) => r.grant_id);
  }

  /** Marks the live connection of one grant revoked (the engine revoked the grant); whether one was. */
  async revokeGrantConnection(grantId: string, at: Date): Promise<boolean> {
    const { affected } = await change(
      this.ds,
      `UPDATE oauth.connection SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL`,
      [grantId, at],
    );
    return affected > 0;
  }

  /** The connection of a grant (the /v1 resolver's second step, after the access token). */
  async connection(grantId: string): Promise<ConnectionRow | null> {
    const rows = await preparedQuery<ConnectionRow>(
      this.ds,
      'oauth_connection_by_grant',
      `SELECT * FROM oauth.connection WHERE grant_id = $1`,
      [grantId],
    );
    return rows[0] ?? null;
  }

  /** `last_used_at`, written at most once a minute per connection; true when the day changed (audit the use). */
  async touch(grantId: string, at: Date): Promise<boolean> {
    const { rows } = await change<{ first_today: boolean }>(
      this.ds,
      `UPDATE oauth.connection c SET last_used_at = $2::timestamptz
           FROM (SELECT last_used_at FROM oauth.connection WHERE grant_id = $1) old
          WHERE c.grant_id = $1
         RETURNING (old.last_used_at IS NULL
                    OR (old.last_used_at AT TIME ZONE 'UTC')::date <> ($2::timestamptz AT TIME ZONE 'UTC')::date)
                   AS first_today`,
      [grantId, at],
    );
    return rows[0]?.first_today ?? false;
  }
}
