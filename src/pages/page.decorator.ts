import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  Header,
  HttpCode,
  Render,
  UseGuards,
} from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CsrfGuard } from './csrf.guard';
import type { PageRouteConfig } from './page-framework';

/**
 * Declares an HTML page route: the method returns the template's data (`it` in the template) and `template`
 * (a file in `src/pages/templates`, without `.eta`) renders it inside `layout.eta`. The route is left out of the
 * OpenAPI documents, answers 200 (a form post too), is not cached, parses cookies, accepts form posts, and its failures render as HTML pages
 * (`error.eta`: an `ApiError('not_found')` is the plain 404 page).
 */
export function Page(template: string): MethodDecorator {
  return applyDecorators(
    Render(template),
    // A page answers 200 whatever its method (Nest's default for POST is 201).
    HttpCode(200),
    RouteConfig({ page: true } satisfies PageRouteConfig),
    Header('Cache-Control', 'no-store'),
    ApiExcludeEndpoint(),
  );
}

/**
 * A fresh CSRF token for a form of this page (sets the browser's CSRF secret cookie when it has none): pass it to
 * the template as `csrf` and put `<%~ include('csrf', it) %>` inside the `<form>`.
 */
export const CsrfToken = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  ctx.switchToHttp().getResponse<FastifyReply>().generateCsrf(),
);

/** On the route receiving the form: refuses (403 page) a post whose CSRF token does not match its cookie. */
export const CheckCsrf = (): MethodDecorator & ClassDecorator => UseGuards(CsrfGuard);
