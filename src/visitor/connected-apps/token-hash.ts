import { createHash } from 'node:crypto';

/**
 * What the `oauth` schema stores in place of a token, code, session or interaction id: its SHA-256 (base64url).
 * The authorization server's adapter writes under it and the /v1 resolver looks access tokens up by it, so a
 * copy of the table holds no usable credential.
 */
export const oauthIdHash = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Prefixes of the opaque values the authorization server issues (what `CredentialRegistry` dispatches on). */
export const ACCESS_TOKEN_PREFIX = 'svc_at_';
export const REFRESH_TOKEN_PREFIX = 'svc_rt_';
export const AUTHORIZATION_CODE_PREFIX = 'svc_ac_';
