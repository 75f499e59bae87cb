import { Module } from '@nestjs/common';
import { ErrorPages } from './error-pages';
import { PageAssetsController } from './page-assets.controller';

/**
 * The shared HTML page framework (docs/architecture.md, "Pages"): the stylesheet route and the HTML error pages.
 * The Fastify side (view engine, cookies, CSRF, form bodies) is `registerPages`, which createApp calls before the
 * routes exist. Page controllers live in their own areas' modules and use `@Page`, `@CsrfToken`, `@CheckCsrf`.
 */
@Module({ controllers: [PageAssetsController], providers: [ErrorPages] })
export class PagesModule {}
