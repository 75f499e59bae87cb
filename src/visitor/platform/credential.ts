import type { FastifyRequest } from 'fastify';
import type { Plan, PlanOverrides } from './plans';
import type { Role } from './scopes';

/** The organisation facts the guard chain needs, loaded with the credential in one query. */
export interface OrganisationAccess {
  id: string;
  plan: Plan;
  overrides: PlanOverrides;
  ipAllowList: string[];
  /**
   * The organisation's reference version, read with the credential (API keys, OAuth tokens): what the reference
   * checks of its writes may be reused for (`ReferenceCache`). Absent: those checks read PostgreSQL.
   */
  referenceVersion?: string;
}

/** Who is calling, resolved from `Authorization: Bearer …` by a CredentialResolver. */
export interface Credential {
  kind: 'api_key' | 'oauth_token';
  /** `key_…` for API keys; the grant id for OAuth tokens. Recorded in the request log and audit trail. */
  id: string;
  livemode: boolean;
  publishable: boolean;
  /** Built-in scopes granted (custom scopes already expanded). */
  scopes: ReadonlySet<string>;
  /** Set when a person acts (OAuth tokens): their role limits what the scopes allow. */
  actingRole: Role | null;
  actingAccountId: string | null;
  organisation: OrganisationAccess;
}

/** Turns a bearer token into a credential, or null when this resolver does not know it. */
export interface CredentialResolver {
  /** Token prefixes this resolver handles (e.g. `svc_sk_live_`). */
  readonly prefixes: readonly string[];
  resolve(token: string, req?: FastifyRequest): Promise<Credential | 'revoked' | null>;
}
