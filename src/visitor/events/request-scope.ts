import { AsyncLocalStorage } from 'node:async_hooks';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';

/** The id of the request whose route handler runs in this async context (`req.ctx.requestId`). */
const scope = new AsyncLocalStorage<string>();

/**
 * The id of the HTTP request this code runs for, or null outside one (background jobs, the CLI, the seeder).
 * Events store it (`visitor.event.request_id`, internal: never in a payload) so the console's request log finds
 * the events, and through them the deliveries, a request caused.
 */
export function currentRequestId(): string | null {
  return scope.getStore() ?? null;
}

/**
 * Runs every Nest route handler with its request's id as the current one (registered app-wide by EventsModule).
 * Work a handler starts and awaits inherits it; work it leaves running after the response (a timer, a queue job)
 * does not run in a request in the sense of the log, and jobs run in their own processes and contexts.
 */
@Injectable()
export class RequestIdScope implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const id = context.switchToHttp().getRequest<FastifyRequest | undefined>()?.ctx?.requestId;
    return id ? scope.run(id, () => next.handle()) : next.handle();
  }
}
