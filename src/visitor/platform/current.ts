import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Credential } from './credential';
import type { Tenant } from './tenant';

function credentialOf(context: ExecutionContext): Credential {
  const credential = context.switchToHttp().getRequest<FastifyRequest>().credential;
  // Only reachable on a route without @Authorize, which the guard chain refuses: a programming error.
  if (!credential) throw new Error('no credential on this request: is the route missing @Authorize?');
  return credential;
}

/** The tenant (organisation and mode) of the request's credential. */
export const CurrentTenant = createParamDecorator((_: unknown, context: ExecutionContext): Tenant => {
  const c = credentialOf(context);
  return { organisationId: c.organisation.id, livemode: c.livemode };
});

/** The request's credential (kind, scopes, publishable, organisation facts). */
export const CurrentCredential = createParamDecorator((_: unknown, context: ExecutionContext) =>
  credentialOf(context),
);
