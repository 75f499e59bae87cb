import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';

export interface ClientRow {
  client_id: string;
  name: string;
  source: 'console' | 'dcr';
  organisation_id: string | null;
  redirect_uris: string[];
  confidential: boolean;
  /** SHA-256 (base64url) of the secret of a confidential client. */
  secret_hash: string | null;
  /** The registered metadata (RFC 7591 names), secret removed. */
  metadata: Record<string, unknown>;
  created_by: string;
  created_at: Date;
  deleted_at: Date | null;
}

/** Registered OAuth clients (console and dynamic registration) in `oauth.client`. */
@Injectable()
export class ClientsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async upsert(c: ClientRow): Promise<void> {
    await this.ds.query(
      `INSERT INTO oauth.client (client_id, name, source, organisation_id, redirect_uris, confidential, secret_hash,
         metadata, created_by, created_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)
       ON CONFLICT (client_id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris,
         secret_hash = EXCLUDED.secret_hash, metadata = EXCLUDED.metadata`,
      [
        c.client_id,
        c.name,
        c.source,
        c.organisation_id,
        c.redirect_uris,
        c.confidential,
        c.secret_hash,
        c.metadata,
        c.created_by,
        c.created_at,
      ],
    );
  }

  async find(clientId: string): Promise<ClientRow | null> {
    const rows = await preparedQuery<ClientRow>(
      this.ds,
      'oauth_client_find',
      `SELECT * FROM oauth.client WHERE client_id = $1 AND deleted_at IS NULL`,
      [clientId],
    );
    return rows[0] ?? null;
  }

  async listForOrganisation(organisationId: string): Promise<ClientRow[]> {
    return this.ds.query(
      `SELECT * FROM oauth.client WHERE organisation_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC`,
      [organisationId],
    );
  }

  async delete(clientId: string, at: Date): Promise<void> {
    await this.ds.query(`UPDATE oauth.client SET deleted_at = $2 WHERE client_id = $1`, [clientId, at]);
  }
}
