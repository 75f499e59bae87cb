import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared';
import { oauthIdHash } from '../visitor/connected-apps/token-hash';
import { change } from '../database/sql';

/** What the engine hands its adapter: a model's payload (`jti` is the stored value itself). */
export type ModelPayload = Record<string, unknown> & {
  jti?: string;
  grantId?: string;
  uid?: string;
  consumed?: number;
};

interface ModelRow {
  payload: ModelPayload;
  consumed_at: Date | null;
}

const FIND = `SELECT payload, consumed_at FROM oauth.model
  WHERE kind = $1 AND id_hash = $2 AND (expires_at IS NULL OR expires_at > now())`;

/** The kinds issued under a grant: once the grant is revoked, none of them may be stored for it again. */
const GRANT_BOUND = new Set(['AccessToken', 'RefreshToken', 'AuthorizationCode']);

const UPSERT_SET = `ON CONFLICT (kind, id_hash) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
  uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`;
const EXPIRES = `CASE WHEN $6::int IS NULL THEN NULL ELSE now() + make_interval(secs => $6::int) END`;

/**
 * The engine's storage (oidc-provider's adapter interface) in `oauth.model`: one row per stored model, keyed by
 * the model kind and the SHA-256 of its id. A token's id is the token itself, so the row keeps only the hash and
 * drops `jti` from the payload; `find` puts it back from the value it was asked for. Grants index themselves under
 * their own id, tokens under their grant, so `revokeByGrantId` (and an admin's revocation) is one DELETE.
 *
 * Redemption is consume-once here, not in the engine (which checks `consumed` on the row it found, so two requests
 * at once both pass): `consume` is a conditional UPDATE only one caller wins. A token is stored only while its
 * grant's row exists, locked against deletion while the token is written, and `revokeGrant` deletes the grant's
 * row before the rest: a request still issuing tokens when the grant is revoked cannot leave a working one behind.
 */
@Injectable()
export class OAuthModelRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async upsert(kind: string, id: string, payload: ModelPayload, expiresIn?: number): Promise<void> {
    const stored = { ...payload };
    delete stored.jti;
    const grantId = kind === 'Grant' ? id : (payload.grantId ?? null);
    const params = [kind, oauthIdHash(id), stored, grantId, payload.uid ?? null, expiresIn ?? null];
    if (!GRANT_BOUND.has(kind) || grantId === null) {
      await this.ds.query(
        `INSERT INTO oauth.model (kind, id_hash, payload, grant_id, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, ${EXPIRES}) ${UPSERT_SET}`,
        params,
      );
      return;
    }
    // FOR KEY SHARE holds off the grant's deletion until this token is written (revokeGrant then deletes it), and
    // a grant deleted first is not found: the token is not stored (the request issuing it raced a revocation).
    await this.ds.query(
      `INSERT INTO oauth.model (kind, id_hash, payload, grant_id, uid, expires_at)
       SELECT $1, $2, $3::jsonb, $4::text, $5::text, ${EXPIRES}
        WHERE EXISTS (SELECT 1 FROM oauth.model g WHERE g.kind = 'Grant' AND g.id_hash = $7 FOR KEY SHARE)
       ${UPSERT_SET}`,
      [...params, oauthIdHash(grantId)],
    );
  }

  async find(kind: string, id: string): Promise<ModelPayload | undefined> {
    const rows = await preparedQuery<ModelRow>(this.ds, 'oauth_model_find', FIND, [kind, oauthIdHash(id)]);
    return rows[0] ? this.restore(rows[0], id) : undefined;
  }

  async findByUid(kind: string, uid: string): Promise<ModelPayload | undefined> {
    const rows: (ModelRow & { jti: string | null })[] = await this.ds.query(
      `SELECT payload, consumed_at FROM oauth.model
        WHERE kind = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [kind, uid],
    );
    // Sessions are the only model found by uid; their id is not secret, and is kept in the payload for this.
    const row = rows[0];
    return row ? this.restore(row, (row.payload.sessionId as string | undefined) ?? undefined) : undefined;
  }

  /**
   * Marks the model consumed unless it already is: of any number of calls at once, one wins (`won`). `grantId`:
   * the grant the model was issued under (null when the row is gone).
   */
  async consume(kind: string, id: string): Promise<{ won: boolean; grantId: string | null }> {
    const rows: { grant_id: string | null; won: boolean }[] = await this.ds.query(
      `WITH won AS (
         UPDATE oauth.model SET consumed_at = now(),
                payload = payload || jsonb_build_object('consumed', extract(epoch from now())::bigint)
          WHERE kind = $1 AND id_hash = $2 AND consumed_at IS NULL
         RETURNING grant_id)
       SELECT m.grant_id, EXISTS (SELECT 1 FROM won) AS won FROM oauth.model m WHERE m.kind = $1 AND m.id_hash = $2`,
      [kind, oauthIdHash(id)],
    );
    return { won: rows[0]?.won ?? false, grantId: rows[0]?.grant_id ?? null };
  }

  async destroy(kind: string, id: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth.model WHERE kind = $1 AND id_hash = $2`, [kind, oauthIdHash(id)]);
  }

  /**
   * Revokes a grant: its row first (waiting for any token being written under it), then, in a statement that sees
   * those tokens, everything stored under it (codes, access and refresh tokens).
   */
  async revokeGrant(grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth.model WHERE kind = 'Grant' AND id_hash = $1`, [
      oauthIdHash(grantId),
    ]);
    await this.ds.query(`DELETE FROM oauth.model WHERE grant_id = $1`, [grantId]);
  }

  async revokeByGrantId(kind: string, grantId: string): Promise<void> {
    await this.ds.query(`DELETE FROM oauth.model WHERE kind = $1 AND grant_id = $2`, [kind, grantId]);
  }

  /** An access token by the hash of its value: its grant, scope, audience and expiry. */
  async accessToken(
    idHash: string,
  ): Promise<{ grant_id: string; scope: string | null; aud: string | null; expires_at: Date | null } | null> {
    const rows = await preparedQuery<{
      grant_id: string;
      scope: string | null;
      aud: string | null;
      expires_at: Date | null;
    }>(
      this.ds,
      'oauth_access_token_by_hash',
      `SELECT grant_id, payload->>'scope' AS scope, payload->>'aud' AS aud, expires_at
         FROM oauth.model WHERE kind = 'AccessToken' AND id_hash = $1`,
      [idHash],
    );
    return rows[0] ?? null;
  }

  /** Deletes everything stored under these grants (codes, tokens, sessions), in the caller's transaction. */
  async deleteGrants(m: EntityManager, grantIds: string[]): Promise<void> {
    if (grantIds.length) await m.query(`DELETE FROM oauth.model WHERE grant_id = ANY($1)`, [grantIds]);
  }

  /** Deletes the person's sign-in sessions at the authorization server, in the caller's transaction. */
  async deleteSessions(m: EntityManager, accountId: string): Promise<void> {
    await m.query(`DELETE FROM oauth.model WHERE kind = 'Session' AND payload->>'accountId' = $1`, [
      accountId,
    ]);
  }

  /** Deletes rows past their expiry; returns how many. */
  async purgeExpired(before: Date): Promise<number> {
    const { affected } = await change(this.ds, `DELETE FROM oauth.model WHERE expires_at <= $1`, [before]);
    return affected;
  }

  private restore(row: ModelRow, id: string | undefined): ModelPayload {
    const payload: ModelPayload = { ...row.payload };
    if (id !== undefined) payload.jti = id;
    if (row.consumed_at && payload.consumed === undefined)
      payload.consumed = Math.floor(new Date(row.consumed_at).getTime() / 1000);
    return payload;
  }
}
