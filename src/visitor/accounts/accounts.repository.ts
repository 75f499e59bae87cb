import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
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

  async findByEmail(email: string): Promise<AccountRow | null> {
    const rows: AccountRow[] = await this.ds.query(
      `SELECT * FROM visitor.console_account WHERE lower(email) = lower($1)`,
      [email],
    );
    return rows[0] ?? null;
  }

  async setPasswordHash(m: EntityManager, id: string, passwordHash: string): Promise<void> {
    await m.query(`UPDATE visitor.console_account SET password_hash = $2 WHERE id = $1`, [id, passwordHash]);
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
}
