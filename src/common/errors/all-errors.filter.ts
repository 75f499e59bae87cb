import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { StoredResponse } from '../http/stored-response';
import { ErrorRenderer } from './error-renderer';

/** The one global filter: Nest routes domain, validation, not-found and Fastify errors through it. */
@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  constructor(private readonly renderer: ErrorRenderer) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    if (exception instanceof StoredResponse) {
      const reply = http.getResponse<FastifyReply>();
      for (const [name, value] of Object.entries(exception.headers)) void reply.header(name, value);
      void reply.status(exception.status).type(exception.contentType).send(exception.body);
      return;
    }
    this.renderer.send(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
