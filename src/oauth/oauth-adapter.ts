import { timingSafeEqual } from 'node:crypto';
import { errors } from 'oidc-provider';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { oauthIdHash } from '../visitor/connected-apps/token-hash';
import { badCharAt, badCharIn } from '../common/errors/validation.pipe';
import { randomBase62 } from '../common/ids';
import { ClientRow, ClientsRepository } from './clients/clients.repository';
import { OAuthModelRepository, ModelPayload } from './oauth-model.repository';

/** The engine's view of a registered client, built from its row. */
export function clientMetadata(row: ClientRow, presentedSecret: string | null): AdapterPayload {
  return {
    ...(row.metadata as AdapterPayload),
    client_id: row.client_id,
    client_name: row.name,
    redirect_uris: row.redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: row.confidential ? 'client_secret_basic' : 'none',
    ...(row.confidential ? { client_secret: secretFor(row, presentedSecret) } : {}),
  };
}

/**
 * Client secrets are stored as hashes, but the engine compares the secret a client presents with the one its
 * adapter returns. So the adapter returns the presented secret when it hashes to the stored one, and otherwise a
 * fresh random value that matches nothing: the comparison the engine makes is then exactly "presented secret
 * hashes to the stored hash".
 */
function secretFor(row: ClientRow, presented: string | null): string {
  if (presented && row.secret_hash) {
    const a = Buffer.from(oauthIdHash(presented));
    const b = Buffer.from(row.secret_hash);
    if (a.length === b.length && timingSafeEqual(a, b)) return presented;
  }
  return `unmatched_${randomBase62(40)}`;
}

/** The client secret of an HTTP Basic `Authorization` header (RFC 6749 §2.3.1 form-encoding undone), if any. */
export function basicSecret(authorization: string | undefined): { clientId: string; secret: string } | null {
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

export interface AdapterDeps {
  models: OAuthModelRepository;
  clients: ClientsRepository;
  /** The `Authorization` header of the request the engine is handling (its async-local context). */
  currentAuthorization: () => string | undefined;
  now: () => Date;
  /** After a grant is revoked by the engine (a replay, or its own revocation): its connection ends. */
  grantRevoked: (grantId: string) => Promise<void>;
}

/** A client registered by dynamic client registration, as the engine hands it to `upsert`. */
function dcrRow(id: string, payload: AdapterPayload, now: Date): ClientRow {
  const { client_secret: secret, ...metadata } = payload as AdapterPayload & { client_secret?: string };
  const confidential = payload.token_endpoint_auth_method !== 'none';
  return {
    client_id: id,
    name: typeof payload.client_name === 'string' ? payload.client_name : id,
    source: 'dcr',
    organisation_id: null,
    redirect_uris: (payload.redirect_uris as string[] | undefined) ?? [],
    confidential,
    secret_hash: confidential && typeof secret === 'string' ? oauthIdHash(secret) : null,
    metadata,
    created_by: 'dcr',
    created_at: now,
    deleted_at: null,
  };
}

/**
 * A value the engine looks up as it is (a client id, an interaction uid; tokens are looked up by their hash): one
 * PostgreSQL cannot hold (NUL) or UTF-8 cannot encode (a lone surrogate) names nothing stored, and is refused as
 * the request's mistake before it reaches a query.
 */
function lookupValue(value: string, what: string): string {
  const bad = badCharIn(value);
  if (bad) throw new errors.InvalidRequest(`${what} ${bad}`);
  return value;
}

/**
 * oidc-provider's adapter over PostgreSQL (`OAuthModelRepository`, `ClientsRepository`): one instance per model
 * name. Clients are rows of `oauth.client` (console and dynamic registration); every other model is a row of
 * `oauth.model` keyed by the hash of its id.
 */
export function adapterFactory(deps: AdapterDeps) {
  const revokeGrant = async (grantId: string) => {
    await deps.models.revokeGrant(grantId);
    await deps.grantRevoked(grantId);
  };
  return class PostgresAdapter implements Adapter {
    constructor(private readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      // A request's parameters the engine keeps (an interaction's, a code's): PostgreSQL's jsonb cannot hold NUL.
      const bad = badCharAt(payload);
      if (bad) throw new errors.InvalidRequest(`${bad.location.split('.').pop()} ${bad.message}`);
      if (this.name === 'Client') return deps.clients.upsert(dcrRow(id, payload, deps.now()));
      await deps.models.upsert(this.name, id, payload as ModelPayload, expiresIn);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.name === 'Client') {
        const row = await deps.clients.find(lookupValue(id, 'client_id'));
        if (!row) return undefined;
        const basic = basicSecret(deps.currentAuthorization());
        return clientMetadata(row, basic && basic.clientId === id ? basic.secret : null);
      }
      return (await deps.models.find(this.name, id)) as AdapterPayload | undefined;
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // no device flow
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await deps.models.findByUid(this.name, lookupValue(uid, 'uid'))) as AdapterPayload | undefined;
    }

    /**
     * The engine calls this after it found the code or refresh token unconsumed, so a request that loses the
     * race here is a replay the engine could not see: as the engine does for one it sees, the grant is revoked
     * (RFC 6749 §4.1.2, RFC 9700 §4.14.2) and the answer is `invalid_grant` (docs/decisions.md).
     */
    async consume(id: string): Promise<void> {
      const { won, grantId } = await deps.models.consume(this.name, id);
      if (won) return;
      if (grantId) await revokeGrant(grantId);
      throw new errors.InvalidGrant(
        this.name === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed',
      );
    }

    async destroy(id: string): Promise<void> {
      if (this.name === 'Client') return deps.clients.delete(lookupValue(id, 'client_id'), deps.now());
      // The engine destroys a grant only to revoke it: everything issued under it goes too.
      if (this.name === 'Grant') return revokeGrant(id);
      await deps.models.destroy(this.name, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deps.models.revokeByGrantId(this.name, grantId);
    }
  };
}
