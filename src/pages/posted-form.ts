import { applyDecorators, HttpCode, Redirect } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { CheckCsrf } from './page.decorator';
import type { PageRouteConfig } from './page-framework';

/**
 * The receiving route of a page's form that answers with a redirect (post, redirect, get): the method returns
 * `{ url, statusCode: 303 }`. A page route (cookies, form bodies, HTML error pages) whose CSRF token is checked.
 */
export const PostedForm = (): MethodDecorator =>
  applyDecorators(
    Redirect(),
    HttpCode(303),
    RouteConfig({ page: true } satisfies PageRouteConfig),
    CheckCsrf(),
    ApiExcludeEndpoint(),
  );
