import { Injectable, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorRenderer, HtmlErrorPages } from '../common/errors/error-renderer';
import type { ApiError } from '../common/errors/api-error';
import { surfaceOf } from '../common/http/surface';
import { HTML, isPageRoute } from './page-framework';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in needed',
  403: 'Not allowed',
  404: 'Page not found',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/** What an error page says: a fixed sentence per status (never the detail, which may name internals). */
const MESSAGES: Record<number, string> = {
  404: 'There is nothing here. The link may be mistyped, or it has expired.',
  429: 'Too many requests came from here. Wait a minute and try again.',
  503: 'This service is briefly unavailable. Try again in a minute.',
};

/**
 * HTML error pages (`templates/error.eta`) for requests a browser makes to pages: errors of `@Page` routes, and
 * unknown paths outside the API, console, docs and health prefixes when the client accepts HTML. Everything else
 * keeps its API format (the ErrorRenderer asks `wants` first).
 */
@Injectable()
export class ErrorPages implements HtmlErrorPages, OnModuleInit {
  constructor(private readonly renderer: ErrorRenderer) {}

  onModuleInit(): void {
    this.renderer.useHtmlPages(this);
  }

  wants(req: FastifyRequest): boolean {
    if (isPageRoute(req)) return true;
    return surfaceOf(req.url) === 'other' && (req.headers.accept ?? '').includes('text/html');
  }

  send(error: ApiError, status: number, req: FastifyRequest, reply: FastifyReply): void {
    // A console page opened without a session: to the sign-in page, which comes back here afterwards.
    if (status === 401 && req.method === 'GET' && surfaceOf(req.url) === 'console') {
      void reply
        .status(303)
        .header('Location', `/console/sign-in?next=${encodeURIComponent(req.url)}`)
        .header('Cache-Control', 'no-store')
        .send();
      return;
    }
    const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request not accepted');
    const message =
      MESSAGES[status] ??
      (status === 403 || status === 400
        ? error.detail
        : status >= 500
          ? 'Something went wrong on our side. If it keeps happening, quote the request id to support.'
          : 'This request was not accepted.');
    void reply
      .status(status)
      .header('Content-Type', HTML)
      .header('Cache-Control', 'no-store')
      .view('error', { title, message, requestId: req.id });
  }
}
