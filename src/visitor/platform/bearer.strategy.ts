import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Strategy } from 'passport-custom';
import { ApiError } from '../../common/errors/api-error';
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
 * Every /v1 credential — API keys and OAuth access tokens — is an `Authorization: Bearer` value resolved by this
 * Passport strategy (passport-custom): the header must use the Bearer scheme (case-insensitive, RFC 9110 §11.1),
 * and the token is handed to the resolver its prefix names (`CredentialRegistry`: `ApiKeysService`,
 * `OAuthTokenResolver`). Query-string and cookie credentials are never read. Failures are the guard chain's
 * `unauthorized` problems, unchanged.
 */
@Injectable()
export class BearerCredentialStrategy extends PassportStrategy(Strategy, V1_BEARER) {
  async validate(req: FastifyRequest): Promise<Credential> {
    const header = req.headers.authorization;
    if (header === undefined)
      throw unauthorized('Send the credential as Authorization: Bearer <key or token>.');
    const m = /^bearer +([\x21-\x7e]+)$/i.exec(header);
    if (!m)
      throw unauthorized('The Authorization header must use the Bearer scheme: Authorization: Bearer <key>.');
    const registry = (req.server as unknown as Record<symbol, CredentialRegistry | undefined>)[REGISTRY];
    const credential = registry ? await registry.resolve(m[1], req) : null;
    if (credential === 'revoked') throw unauthorized('The credential has been revoked or has expired.');
    if (!credential) throw unauthorized('The credential is not valid.');
    return credential;
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
