import type { FastifyRequest } from 'fastify';
import { SurfaceName } from './surface';

/** What the server knows about a request; filled in as the request passes guards and filters. */
export interface RequestContext {
  requestId: string;
  surface: SurfaceName;
  receivedAt: Date;
  errorRef: string | null;
  errorCode: string | null;
  organisationId: string | null;
  credentialId: string | null;
  livemode: boolean | null;
  /** Set by a surface's credential guard; read by RateLimitGuard (null: not limited). */
  rateLimit: RateLimitBucket | null;
}

/** One shared allowance: `bucket` names who shares it (an IP, a key, an organisation and mode). */
export interface RateLimitBucket {
  bucket: string;
  limit: number;
  windowMs: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export function contextOf(req: FastifyRequest): RequestContext {
  return req.ctx;
}
