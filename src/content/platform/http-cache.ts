import { createHash } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Whether an `If-None-Match` header value matches the strong ETag `etag` (a list, or `*`). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v === etag || v === `W/${etag}`;
  });
}

/**
 * HTTP caching of /public/v1 (beyond the spec): a strong `ETag` (SHA-256 of the body) on every 200 to GET and
 * HEAD (a HEAD runs the GET handler, so its validator is the one the GET body would have), and
 * `If-None-Match` → 304 without a body; `Cache-Control: public, max-age=60` on keyless responses and
 * `private, max-age=60` on keyed ones (a shared cache must not count one partner's requests as another's).
 */
@Injectable()
export class PublicHttpCache implements OnModuleInit {
  constructor(private readonly adapter: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapter.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (req.ctx?.surface !== 'public' || reply.statusCode !== 200) return payload;
      if (req.method !== 'GET' && req.method !== 'HEAD') return payload;
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      const etag = `"${createHash('sha256').update(payload).digest('base64url')}"`;
      void reply.header('ETag', etag);
      void reply.header('Cache-Control', `${req.ctx.credentialId ? 'private' : 'public'}, max-age=60`);
      const inm = req.headers['if-none-match'];
      if (etagMatches(Array.isArray(inm) ? inm.join(',') : inm, etag)) {
        void reply.code(304);
        void reply.removeHeader('content-length');
        return '';
      }
      return payload;
    });
  }
}
