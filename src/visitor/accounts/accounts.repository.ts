import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import type { Plan } from '../platform/plans';
import type { Role } from '../platform/scopes';

export interface AccountRow {
  id: string;
  organisation_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  disabled_at: Date | null;
  last_sign_in_at: Date | null;
  created_at: Date;
}

/**
 * A person an OAuth token acts for, with the organisation facts the /v1 guard chain needs: one query, reading the
 * organisation's published plan (`published.organisations_plan`).
 */
export interface ActingAccess {
  role: Role;
  disabled_at: Date | null;
  plan: Plan;
  rate_limit_per_minute: number | null;
  history_days: number | null;
  audit_days: number | null;
  ip_allow_list: string[];
  reference_version: string;
}

const ACTING_ACCESS = `
  SELECT a.role, a.disabled_at, o.plan, o.rate_limit_per_minute, o.history_days, o.audit_days,
         o.ip_allow_list::text[] AS ip_allow_list, o.reference_version::text AS reference_version
    FROM visitor.console_account a JOIN published.organisations_plan o ON o.id = a.organisation_id
   WHERE a.id = $1 AND a.organisation_id = $2`;

/** Console accounts and their sessions (session tokens stored as SHA-256 hashes). */
@Injectable()
export class AccountsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async insert(m: EntityManager, a: AccountRow): Promise<'ok' | 'email_taken'> {
    try {
      await m.query(
        `INSERT INTO visitor.console_account (id, organisation_id, email, name, role, password_hash, created_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7)`,
        [a.id, a.organisation_id, a.email, a.name, a.role, a.password_hash, a.created_at],
      );
      return 'ok';
    } catch (e) {
      if ((e as { code?: string }).code === '23505') return 'email_taken';
      throw e;
    }
  }

  /** The account's current role and its organisation's access facts (an OAuth token acts with today's role). */
  async actingAccess(accountId: string, organisationId: string): Promise<ActingAccess | null> {
    const rows = await preparedQuery<ActingAccess>(this.ds, 'console_account_acting', ACTING_ACCESS, [
      accountId,
      organisationId,
    ]);
    return rows[0] ?? null;
  }

  /** E-mail addresses of the organisation's Owners and Admins. */
  async adminEmails(organisationId: string): Promise<string[]> {
    const rows = (await this.ds.query(
      `SELECT email FROM visitor.console_account WHERE organisation_id = $1 AND role IN ('owner', 'admin') ORDER BY created_at`,
      [organisationId],
    )) as { email: string }[];
    return rows.map((r) => r.email);
  }

  async findById(id: string): Promise<AccountRow | null> {
    const rows: AccountRow[] = await this.ds.query(`SELECT * FROM visitor.console_account WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  async findByEmail(email: string): Promise<AccountRow | null> {
    const rows: AccountRow[] = await this.ds.query(
      `SELECT * FROM visitor.console_account WHERE lower(email) = lower($1)`,
      [email],
    );
    return rows[0] ?? null;
  }

  /**
   * A new password hash, and every open session of the account ended with it (on `m`: the same transaction):
   * console sessions are revoked, except `keepTokenHash` (the one that made the change, if any); the service ends
   * the OAuth engine's sign-in sessions in the same transaction. Returns the console sessions ended.
   */
  async changePassword(
    m: EntityManager,
    id: string,
    passwordHash: string,
    at: Date,
    keepTokenHash: string | null = null,
  ): Promise<number> {
    await m.query(`UPDATE visitor.console_account SET password_hash = $2 WHERE id = $1`, [id, passwordHash]);
    const ended: unknown[] = await m.query(
      `UPDATE visitor.console_session SET revoked_at = $2
        WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND token_hash IS DISTINCT FROM $3
        RETURNING 1`,
      [id, at, keepTokenHash],
    );
    return ended.length;
  }

  async markSignedIn(m: EntityManager, id: string, at: Date): Promise<void> {
    await m.query(`UPDATE visitor.console_account SET last_sign_in_at = $2 WHERE id = $1`, [id, at]);
  }

  async insertSession(
    m: EntityManager,
    tokenHash: string,
    accountId: string,
    at: Date,
    expiresAt: Date,
  ): Promise<void> {
    await m.query(
      `INSERT INTO visitor.console_session (token_hash, account_id, created_at, expires_at) VALUES ($1,$2,$3,$4)`,
      [tokenHash, accountId, at, expiresAt],
    );
  }

  /** The signed-in account of a live session (not revoked, not expired, account not disabled). */
  async sessionAccount(tokenHash: string, now: Date): Promise<AccountRow | null> {
    const rows = await preparedQuery<AccountRow>(
      this.ds,
      'console_session_account',
      `SELECT a.* FROM visitor.console_session s JOIN visitor.console_account a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND a.disabled_at IS NULL`,
      [tokenHash, now],
    );
    return rows[0] ?? null;
  }

  async revokeSession(tokenHash: string, at: Date): Promise<void> {
    await this.ds.query(`UPDATE visitor.console_session SET revoked_at = $2 WHERE token_hash = $1`, [
      tokenHash,
      at,
    ]);
  }

  /** The organisation's people with console access (not removed), oldest first, keyset on (created_at, id). */
  async team(
    organisationId: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<AccountRow[]> {
    const params: unknown[] = [organisationId, limit + 1];
    let where = '';
    if (after) {
      params.push(after.createdAt, after.id);
      where = `AND (created_at, id) > ($3::timestamptz, $4)`;
    }
    return this.ds.query(
      `SELECT * FROM visitor.console_account WHERE organisation_id = $1 AND disabled_at IS NULL ${where}
        ORDER BY created_at, id LIMIT $2`,
      params,
    );
  }

  /**
   * The organisation's active Owners, locked for the rest of the transaction `m` (so two demotions at once cannot
   * both pass the last-Owner check), and the account itself, locked too.
   */
  async lockForRoleChange(
    m: EntityManager,
    organisationId: string,
    accountId: string,
  ): Promise<{ account: AccountRow | null; owners: string[] }> {
    const rows: AccountRow[] = await m.query(
      `SELECT * FROM visitor.console_account
        WHERE organisation_id = $1 AND disabled_at IS NULL AND (role = 'owner' OR id = $2)
        ORDER BY id FOR UPDATE`,
      [organisationId, accountId],
    );
    return {
      account: rows.find((r) => r.id === accountId) ?? null,
      owners: rows.filter((r) => r.role === 'owner').map((r) => r.id),
    };
  }

  async setRole(m: EntityManager, id: string, role: Role): Promise<void> {
    await m.query(`UPDATE visitor.console_account SET role = $2 WHERE id = $1`, [id, role]);
  }

  /** Turns the account off and ends its console sessions (a removed person cannot sign in or act). */
  async disable(m: EntityManager, id: string, at: Date): Promise<void> {
    await m.query(`UPDATE visitor.console_account SET disabled_at = $2 WHERE id = $1`, [id, at]);
    await m.query(
      `UPDATE visitor.console_session SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL`,
      [id, at],
    );
  }
}
