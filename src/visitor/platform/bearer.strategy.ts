import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import { ApiError } from '../../common/errors/api-error';
import { protectedResourceOf } from '../../common/errors/bearer-challenge';
import type { Credential } from './credential';
import { CredentialRegistry } from './credential.registry';

/** The Passport strategy name of /v1 credentials. */
export const V1_BEARER = 'v1-bearer';

export const unauthorized = (detail: string) =>
  new ApiError('unauthorized', detail, [{ location: 'header.Authorization', message: detail }]);

const REGISTRY = Symbol('gatehouse.credentialRegistry');

/**
 * Which registry a request's credential is resolved with: the one of the application serving it. Passport keeps
 * strategies in one process-wide table by name, so the strategy holds no registry of its own (several
 * applications run in one process in tests); each application puts its registry on its Fastify instance.
 */
export function attachCredentialRegistry(fastify: FastifyInstance, registry: CredentialRegistry): void {
  (fastify as unknown as Record<symbol, unknown>)[REGISTRY] = registry;
  // Passport (and @nestjs/passport's `user`) add these to every request it sees; declared up front, every Fastify
  // request keeps one shape instead of changing it on each /v1 call (which slows every later property access).
  for (const name of PASSPORT_REQUEST_FIELDS)
    if (!fastify.hasRequestDecorator(name)) fastify.decorateRequest(name, null);
}

const PASSPORT_REQUEST_FIELDS = [
  'user',
  'login',
  'logIn',
  'logout',
  'logOut',
  'isAuthenticated',
  'isUnauthenticated',
  '_sessionManager',
] as const;

/**
 * The credential of a request to a protected resource (`/v1`, `/mcp`; `common/errors/bearer-challenge.ts`), the one
 * credential pipeline both surfaces use: the `Authorization` header must use the Bearer scheme (case-insensitive,
 * RFC 9110 §11.1), and the token is handed to the resolver its prefix names (`CredentialRegistry`: API keys,
 * OAuth access tokens — which must have been issued for the resource the request is under). Query-string and
 * cookie credentials are never read. A publishable key is refused on the tool server (`/mcp`): it is made to be
 * seen by anyone, and the tool server has no call a publishable key may make.
 *
 * Refusals are `unauthorized` (401) problems naming `scopes` (the scopes the call needs, which the error renderer
 * puts in the `WWW-Authenticate` challenge), or `forbidden` for a publishable key on `/mcp`.
 */
export async function authenticate(req: FastifyRequest, scopes: readonly string[] = []): Promise<Credential> {
  const refuse = (detail: string) => unauthorized(detail).needing(scopes);
  const header = req.headers.authorization;
  if (header === undefined) throw refuse('Send the credential as Authorization: Bearer <key or token>.');
  const m = /^bearer +([\x21-\x7e]+)$/i.exec(header);
  if (!m) throw refuse('The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.');
  const registry = (req.server as unknown as Record<symbol, CredentialRegistry | undefined>)[REGISTRY];
  const credential = registry ? await registry.resolve(m[1], req) : null;
  if (credential === 'revoked') throw refuse('The credential has been revoked or has expired.');
  if (!credential) throw refuse('The credential is not valid.');
  if (credential.publishable && protectedResourceOf(req.url) === 'mcp')
    throw new ApiError(
      'forbidden',
      'A publishable key cannot call the tool server; use a secret key, or connect the assistant with OAuth.',
    );
  return credential;
}

/** The Passport strategy (passport-custom) of the /v1 guard chain's steps 1–2: `authenticate`, unchanged. */
@Injectable()
export class BearerCredentialStrategy extends PassportStrategy(Strategy, V1_BEARER) {
  validate(req: FastifyRequest): Promise<Credential> {
    return authenticate(req);
  }
}

/** Runs the strategy (`@nestjs/passport`); leaves the credential on `req.user`. Errors pass through as they are. */
@Injectable()
export class BearerCredentialGuard extends AuthGuard(V1_BEARER) {
  override handleRequest<T>(err: unknown, user: T, _info: unknown, _context: ExecutionContext): T {
    if (err) throw err;
    if (!user) throw unauthorized('The credential is not valid.');
    return user;
  }
}
