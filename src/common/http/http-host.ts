import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/**
 * The Fastify instance under the application, or null in an application context without HTTP (the service-tier
 * tests, code that runs services outside a request): a provider that adds hooks or routes to Fastify skips them.
 */
export function fastifyOf(host: HttpAdapterHost): FastifyInstance | null {
  return host.httpAdapter ? host.httpAdapter.getInstance<FastifyInstance>() : null;
}
