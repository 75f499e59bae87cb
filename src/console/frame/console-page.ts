import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';
import { Page } from '../../pages/page.decorator';
import { navFor } from './console-nav';

/** What every console page's layout (`console-layout.eta`) reads as `it.frame`. */
export interface ConsoleFrame {
  nav: { path: string; title: string; current: boolean }[];
  organisationName: string;
  /** An account belongs to exactly one organisation (e-mail is unique), so there is no organisation switcher. */
  person: { name: string; email: string; role: string };
  mode: 'live' | 'test';
  /** CSRF token of the layout's own forms (sign-out, live/test switch). */
  csrf: string;
  /** This page's path and query: where the live/test switch comes back to. */
  here: string;
  requestId: string;
}

/** Adds `frame` to the data a console page returns, for the layout; the page's own data is left as it is. */
@Injectable()
export class ConsoleFrameInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    return next.handle().pipe(
      map((data: Record<string, unknown>) => {
        const account = req.account!;
        const tenant = req.consoleTenant!;
        const frame: ConsoleFrame = {
          nav: navFor(account.role, req.url),
          organisationName: tenant.organisationName,
          person: { name: account.name, email: account.email, role: account.role },
          mode: tenant.livemode ? 'live' : 'test',
          csrf: reply.generateCsrf(),
          here: req.url.replace(/([?&])mode=(live|test)&?/, '$1').replace(/[?&]$/, ''),
          requestId: String(req.id),
        };
        return { ...data, frame };
      }),
    );
  }
}

/**
 * A console page: `@Page(template)` (HTML, no-store, CSRF-ready, HTML errors) whose template starts with
 * `<% layout('console-layout') %>` and gets the frame (navigation, organisation, person, live/test switch) as
 * `it.frame`. The route (or controller) also declares `@ConsoleAuth(...consoleRoles(path))`.
 */
export const ConsolePage = (template: string): MethodDecorator =>
  applyDecorators(Page(template), UseInterceptors(ConsoleFrameInterceptor));
