import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorRenderer } from './error-renderer';

/** The one global filter: Nest routes domain, validation, not-found and Fastify errors through it. */
@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  constructor(private readonly renderer: ErrorRenderer) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.renderer.send(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
