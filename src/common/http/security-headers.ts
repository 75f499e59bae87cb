import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import helmet, { HelmetOptions } from 'helmet';
import { ApiError } from '../errors/api-error';
import { PREFIX } from './surface';

type Header = readonly [name: string, value: string];

/**
 * The headers helmet's middleware sets for `options`, recorded once by running it against a stand-in response:
 * the values are helmet's, but no request pays for helmet building them again (`@fastify/helmet` runs helmet's
 * option parsing and two hooks, one of them async, on every request of every route).
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Header[] {
  const headers: Header[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
  });
  return headers;
}

/** `'sha256-…'` CSP sources for each inline `<style>` element of an HTML page. */
export function inlineStyleHashes(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`,
  );
}

/** Whether `url` is under `prefix` (exactly, or followed by `/` or `?`), without allocating. */
function under(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charCodeAt(prefix.length);
  return Number.isNaN(next) || next === 0x2f || next === 0x3f;
}

export interface SecurityHeaderOptions {
  /** Inline `<style>` contents the HTML pages may use, as CSP hash sources (see inlineStyleHashes). */
  styleHashes: string[];
}

/**
 * Security response headers, computed once with helmet and set by one callback-style `onRequest` hook (registered
 * before the request-context hook, so they are on every answer, errors of later hooks included):
 *
 * - /public/v1: only `X-Content-Type-Options: nosniff`; its Cache-Control and CORS headers stay the pipeline's.
 * - every other surface: helmet's set — nosniff, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`, the
 *   cross-origin and legacy headers — and a strict `Content-Security-Policy`: nothing may load except this
 *   origin's stylesheets and images (the pages' `/assets/pages.css`, `data:` images) and the inline styles the docs
 *   pages are known to use (by hash), no script, no framing (`frame-ancestors 'none'`), forms post only to this
 *   origin. JSON answers carry it too: it costs nothing and protects a response opened as a page.
 * - /v1 and /console answers also get `Cache-Control: no-store` (a route may set its own, e.g. the OpenAPI
 *   document's `public, max-age=300`).
 * - `Strict-Transport-Security` (helmet's: one year, subdomains) on every surface when the request came over
 *   HTTPS: on the socket, or by `X-Forwarded-Proto` from a trusted proxy (TRUST_PROXY).
 *
 * A duplicated `Authorization` header is refused as `unauthorized` on every route but /public/v1 (Node would keep
 * only the first): a route-level hook, so the public API pays nothing for it.
 */
export function registerSecurityHeaders(fastify: FastifyInstance, opts: SecurityHeaderOptions): void {
  const all = helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        // HTML pages: the app's own stylesheet (/assets/pages.css), the docs' inline styles by hash, images
        // (QR codes) from the app or inline data; still no script.
        styleSrc: ["'self'", ...opts.styleHashes],
        imgSrc: ["'self'", 'data:'],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  // Console pages may also run this origin's scripts (htmx at /assets/htmx.min.js); still no inline script.
  const consoleCsp = helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        styleSrc: ["'self'", ...opts.styleHashes],
        imgSrc: ["'self'", 'data:'],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
  }).find(([name]) => name === 'Content-Security-Policy')![1];
  const isHsts = ([name]: Header) => name === 'Strict-Transport-Security';
  const hsts = all.find(isHsts)![1];
  const site = all.filter((h) => !isHsts(h));
  const api = [...site, ['Cache-Control', 'no-store'] as const];
  const nosniff = all.find(([name]) => name === 'X-Content-Type-Options')![1];

  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const url = req.url;
    if (under(url, PREFIX.public)) void reply.header('X-Content-Type-Options', nosniff);
    else {
      const headers = under(url, PREFIX.visitor) || under(url, PREFIX.console) ? api : site;
      for (const [name, value] of headers) void reply.header(name, value);
      if (under(url, PREFIX.console)) void reply.header('Content-Security-Policy', consoleCsp);
    }
    if (req.protocol === 'https') void reply.header('Strict-Transport-Security', hsts);
    done();
  });

  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (under(route.url, PREFIX.public)) return;
    const existing = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...existing, refuseDuplicateAuthorization] as RouteOptions['onRequest'];
  });
}

/** Node keeps the first of several `Authorization` headers and drops the rest; this refuses them instead. */
function refuseDuplicateAuthorization(req: FastifyRequest, _reply: FastifyReply, done: (e?: Error) => void) {
  if (req.headers.authorization === undefined) return done();
  const raw = req.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') seen++;
  if (seen > 1)
    return done(new ApiError('unauthorized', 'The Authorization header was sent more than once; send one.'));
  done();
}
