import { pathOf } from '../http/surface';

/**
 * The protected resources of this server (RFC 8707 / RFC 9728): the visitor-management API and the tool server
 * for AI assistants. Each OAuth access token is bound to exactly one of them (its audience is the resource URL).
 */
export const PROTECTED_RESOURCES = ['v1', 'mcp'] as const;
export type ProtectedResource = (typeof PROTECTED_RESOURCES)[number];

/** The protected resource a request URL is under (`/v1…` or `/mcp…`), or null (`/public/mcp` is keyless: null). */
export function protectedResourceOf(url: string): ProtectedResource | null {
  const path = pathOf(url);
  for (const name of PROTECTED_RESOURCES) {
    const prefix = `/${name}`;
    if (path === prefix || path.startsWith(`${prefix}/`)) return name;
  }
  return null;
}

/** A resource's identifier (what `resource=` names and a token's audience holds): `{BASE_URL}/v1`, `{BASE_URL}/mcp`. */
export const resourceUrl = (baseUrl: string, resource: ProtectedResource) => `${baseUrl}/${resource}`;

/** Where a resource's RFC 9728 metadata is (the path-suffixed well-known URL, RFC 9728 §3.1). */
export const resourceMetadataUrl = (baseUrl: string, resource: ProtectedResource) =>
  `${baseUrl}/.well-known/oauth-protected-resource/${resource}`;

/** What a Bearer challenge says (RFC 6750 §3). */
export interface ChallengeParts {
  /** `invalid_token` (a credential was sent and refused) or `insufficient_scope` (403); none when nothing was sent. */
  error?: 'invalid_token' | 'insufficient_scope';
  /** Every scope the call needs (RFC 6750 `scope`); omitted when empty. */
  scopes?: readonly string[];
}

/**
 * The `WWW-Authenticate` value of a protected resource's 401 (and its `insufficient_scope` 403): where the
 * resource's metadata is, the scopes the call needs and, when a credential was refused, why. Null for a URL under
 * no protected resource. Scope words are `[a-z:_]`, so they need no escaping inside the quoted string.
 */
export function bearerChallenge(baseUrl: string, url: string, parts: ChallengeParts = {}): string | null {
  const resource = protectedResourceOf(url);
  if (!resource) return null;
  const metadata = `resource_metadata="${resourceMetadataUrl(baseUrl, resource)}"`;
  const scope = parts.scopes?.length ? `scope="${parts.scopes.join(' ')}"` : null;
  // insufficient_scope leads (what the client must act on); otherwise the metadata, as clients discover from it.
  const ordered =
    parts.error === 'insufficient_scope'
      ? [`error="insufficient_scope"`, scope, metadata]
      : [metadata, scope, parts.error ? `error="${parts.error}"` : null];
  return `Bearer ${ordered.filter((p) => p !== null).join(', ')}`;
}

/**
 * CORS headers of a protected resource's 401 and 403 answers: any origin, no credentials mode, and the challenge
 * readable by a browser-based client (which discovers how to connect from it).
 */
export const CHALLENGE_CORS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, Svc-Request-Id',
};
