import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import { RouteConstraints } from '@nestjs/platform-fastify';
import type { Config } from '../config/config';
import { ApiError } from '../common/errors/api-error';

/** The templates folder (copied beside the compiled code by `swc --copy-files`). */
export const TEMPLATES = join(__dirname, 'templates');
export const HTML = 'text/html; charset=utf-8';
/** Name of the cookie holding the CSRF secret of a browser (signed, HttpOnly, SameSite=Strict). */
export const CSRF_COOKIE = 'gh_csrf';
/** Name of the hidden form field carrying the CSRF token (`templates/csrf.eta`). */
export const CSRF_FIELD = '_csrf';

/** Fastify route config of an HTML page route (set by `@Page`). */
export interface PageRouteConfig {
  page?: boolean;
}

/** Whether the request was routed to an HTML page route (declared with `@Page`). */
export function isPageRoute(req: FastifyRequest): boolean {
  return (req.routeOptions?.config as PageRouteConfig | undefined)?.page === true;
}

/**
 * Route constraint `{ browser: 'html' }` (`@ForBrowsers()`): the route answers only requests whose `Accept` names
 * `text/html` (a browser opening a page); any other request of the same method and path goes to the route without
 * the constraint (the console's JSON endpoint of the same path, e.g. `GET /console/visits/:id`).
 */
const BROWSER_CONSTRAINT: Parameters<FastifyInstance['addConstraintStrategy']>[0] = {
  name: 'browser',
  storage() {
    const handlers = new Map<string, unknown>();
    return {
      get: (value: string) => (handlers.get(value) ?? null) as never,
      set: (value: string, store: unknown) => void handlers.set(value, store),
    };
  },
  deriveConstraint: (req) =>
    (String(req.headers.accept ?? '').includes('text/html') ? 'html' : undefined) as never,
  mustMatchWhenDerived: false,
  validate(value: unknown) {
    if (value !== 'html') throw new Error('the browser constraint takes only "html"');
  },
};

/**
 * A page at the same method and path as a JSON endpoint: browsers (`Accept: text/html`) get the page, every other
 * client the endpoint.
 */
export const ForBrowsers = (): MethodDecorator => RouteConstraints({ browser: 'html' });

/** The cookie-signing key of the pages, derived from SESSION_SECRET (other uses derive their own). */
function cookieKey(config: Config): string {
  return createHmac('sha256', config.secrets.sessionSecret).update('gatehouse page cookies v1').digest('hex');
}

/** Parses the Cookie header into `req.cookies` (page routes only: no API request pays for cookie parsing). */
function parseCookies(this: FastifyInstance, req: FastifyRequest, _reply: FastifyReply, done: () => void) {
  req.cookies = this.parseCookie(req.headers.cookie ?? '');
  done();
}

/**
 * Registers the HTML page machinery on the Fastify instance, before Nest registers its routes (createApp):
 *
 * - `@fastify/view` with Eta over `src/pages/templates` (Nest's `@Render`, which `@Page` applies, calls it);
 * - `@fastify/cookie` without its global parsing hook: only page routes parse cookies (an `onRequest` hook added
 *   to each route marked `page` as it is registered);
 * - `@fastify/csrf-protection`, its secret in the signed `gh_csrf` cookie, the token read from the `_csrf` form
 *   field or an `x-csrf-token` header (`@CsrfToken()` makes one, `@CheckCsrf()` checks it);
 * - a parser of `application/x-www-form-urlencoded` bodies that serves page routes only: every API keeps
 *   refusing anything but JSON as before.
 */
export async function registerPages(fastify: FastifyInstance, config: Config): Promise<void> {
  fastify.addConstraintStrategy(BROWSER_CONSTRAINT);
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if ((route.config as PageRouteConfig | undefined)?.page !== true) return;
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [parseCookies, ...existing] as RouteOptions['onRequest'];
  });
  await fastify.register(fastifyCookie, { hook: false, secret: cookieKey(config) });
  await fastify.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'strict', secure: 'auto', signed: true },
    getToken: (req: FastifyRequest) => {
      const token =
        (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD] ?? req.headers['x-csrf-token'];
      return typeof token === 'string' ? token : undefined;
    },
  });
  await fastify.register(fastifyView, {
    // Templates are compiled once, in every mode (`production: true`: @fastify/view otherwise sets Eta's cache
    // from NODE_ENV on every render). The server reads them from dist/, which only a build (and so a restart)
    // changes; reading and compiling them on each render was most of a console page's CPU (bench console).
    engine: { eta: new Eta({ views: TEMPLATES, cache: true }) },
    templates: TEMPLATES,
    viewExt: 'eta',
    production: true,
  });
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      if (!isPageRoute(req))
        return done(
          new ApiError(
            'bad_request',
            'Content-Type application/x-www-form-urlencoded is not supported; send application/json.',
            [{ location: 'header.Content-Type', message: 'must be application/json' }],
          ),
        );
      // fromEntries defines own properties (a `__proto__` field is just a field); a repeated name keeps the last.
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );
}
