import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import apiReference from '@scalar/fastify-api-reference';
import type { OpenApiDocument, OpenApiRegistry } from './openapi.registry';

type Json = Record<string, unknown>;
type Which = 'public' | 'visitor';

/** Where each reference is served (Scalar serves the page at `<prefix>/`, its script and the document below it). */
export const REFERENCE_PREFIX: Record<Which, `/${string}`> = {
  visitor: '/docs/visitor',
  public: '/docs/public',
};

const GUIDES = join(__dirname, 'guides');

/** The guides of one reference (`src/docs/guides/*.md`; `public-*` are the public API's), in file order. */
export function guides(which: Which): string {
  return readdirSync(GUIDES)
    .filter((f) => f.endsWith('.md') && f.startsWith('public-') === (which === 'public'))
    .sort()
    .map((f) => readFileSync(join(GUIDES, f), 'utf8').trim())
    .join('\n\n');
}

const PLAN_NAMES: Record<string, string> = {
  free: 'Free',
  starter: 'Starter',
  growth: 'Growth',
  pro: 'Pro',
  enterprise: 'Enterprise',
};

/** The line every /v1 operation starts with: the scope, the plans whose live mode may call it, publishable keys. */
export function accessLine(op: Json): string | null {
  const scope = op['x-required-scope'];
  if (typeof scope !== 'string') return null;
  const plans = (op['x-required-plan'] as string[] | undefined) ?? [];
  const live = plans.length ? plans.map((p) => PLAN_NAMES[p] ?? p).join(', ') : 'none';
  const publishable = op['x-publishable-key'] === true ? ' · **Publishable keys:** allowed' : '';
  return `**Scope:** \`${scope}\` · **Plan:** live mode on ${live}; test mode on every plan${publishable}`;
}

/**
 * The document the reference page shows: the served contract with the guides as its introduction (Scalar lists
 * their headings in the navigation) and, on /v1, the access line at the top of every operation's description.
 */
export function referenceDocument(doc: OpenApiDocument, which: Which): OpenApiDocument {
  const info = doc.info as Json;
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    paths[path] = {};
    for (const [method, op] of Object.entries(item)) {
      const access = accessLine(op);
      paths[path][method] = access
        ? { ...op, description: [access, op.description].filter(Boolean).join('\n\n') }
        : op;
    }
  }
  return {
    ...doc,
    info: { ...info, description: `${String(info.description ?? '')}\n\n${guides(which)}` },
    paths,
  };
}

/** `'sha256-…'` CSP sources for each inline `<script>` element of an HTML page. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`,
  );
}

/**
 * The reference pages run Scalar's bundled script (served by the app: no CDN) and its inline start-up script, which
 * is allowed by hash; Scalar's components set inline styles, so those are allowed on these pages only.
 */
function referenceCsp(html: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(html).join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function withReferenceCsp(
  _req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: null, payload: unknown) => void,
) {
  if (typeof payload === 'string' && String(reply.getHeader('content-type')).startsWith('text/html')) {
    void reply.header('Content-Security-Policy', referenceCsp(payload));
    return done(null, withRepairScript(withLang(payload)));
  }
  done(null, payload);
}

const ASSETS = join(__dirname, 'assets');

/**
 * Colours that give Scalar's text 4.5:1 contrast (Scalar's `customCss`: an inline style, which these pages' CSP
 * allows).
 */
const REFERENCE_THEME = readFileSync(join(ASSETS, 'reference-theme.css'), 'utf8');

/** The script that repairs Scalar's ARIA faults after it renders (assets/reference-a11y.js), at a hashed URL. */
let repairScript: Bundle | null = null;
const repairAsset = (): Bundle =>
  (repairScript ??= hashedScript(
    'reference-a11y',
    // the build's copy, without the source-map comment the build appends (no map is served)
    Buffer.from(
      readFileSync(join(ASSETS, 'reference-a11y.js'), 'utf8').replace(
        /\n\/\/# sourceMappingURL=\S*\s*$/,
        '\n',
      ),
    ),
  ));

/** The repair script runs after Scalar's start-up script (the last elements of the body). */
const withRepairScript = (html: string) =>
  html.replace(/<\/body>/, `  <script src="${repairAsset().url}"></script>\n  </body>`);

/** Scalar's bundled script, the one `@scalar/fastify-api-reference` serves at `<prefix>/js/scalar.js`. */
const SCALAR_SCRIPT = join(dirname(require.resolve('@scalar/fastify-api-reference')), 'js', 'standalone.js');

interface Bundle {
  /** `/docs/assets/<name>.<first 16 hex of its SHA-256>.js`: a new version of the script is a new URL. */
  url: string;
  identity: Buffer;
  /** Compressed once, on the first request that accepts it (not at start-up: most processes never serve it). */
  encoded: Partial<Record<'br' | 'gzip', Promise<Buffer>>>;
}

function hashedScript(name: string, identity: Buffer): Bundle {
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return { url: `/docs/assets/${name}.${hash}.js`, identity, encoded: {} };
}

let bundle: Bundle | null = null;

/** The script, its hashed URL and its compressed copies, shared by every app of the process. */
const scalarBundle = (): Bundle => (bundle ??= hashedScript('scalar', readFileSync(SCALAR_SCRIPT)));

/** The encoding to send for an `Accept-Encoding`: brotli, then gzip, when the client accepts them (q > 0). */
export function pickEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((x) => /^\s*q=([\d.]+)\s*$/.exec(x)).find(Boolean);
    if (name) accepted.set(name, q ? Number(q[1]) : 1);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null;
}

const compress = {
  br: (b: Buffer) =>
    promisify(brotliCompress)(b, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: b.length },
    }),
  gzip: (b: Buffer) => promisify(gzip)(b, { level: 6 }),
};

/**
 * A reference page's script at a URL naming its content hash: cached for a year as immutable, compressed with
 * brotli or gzip when the client accepts it (`Vary: Accept-Encoding`).
 */
function registerScript(fastify: FastifyInstance, b: Bundle): string {
  fastify.get(b.url, async (req, reply) => {
    const encoding = pickEncoding(req.headers['accept-encoding']);
    void reply
      .header('Content-Type', 'text/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('Vary', 'Accept-Encoding');
    if (!encoding) return reply.send(b.identity);
    const encoded = await (b.encoded[encoding] ??= compress[encoding](b.identity));
    return reply.header('Content-Encoding', encoding).send(encoded);
  });
  return b.url;
}

/** Every reference page declares its language (Scalar's page has a bare `<html>`). */
const withLang = (html: string) => html.replace(/<html(?![^>]*\blang=)/, '<html lang="en"');

/**
 * Serves the two API references with Scalar (`@scalar/fastify-api-reference`): `/docs/visitor/` and
 * `/docs/public/` (`/docs/visitor` redirects there), each with navigation, search, rendered examples, request
 * samples and the guides. Registered by createApp where the docs surface is served, before the routes are built.
 */
export async function registerApiReferences(
  fastify: FastifyInstance,
  registry: OpenApiRegistry,
): Promise<void> {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!Object.values(REFERENCE_PREFIX).some((p) => route.url === `${p}/`)) return;
    const existing = route.onSend === undefined ? [] : [route.onSend].flat();
    route.onSend = [...existing, withReferenceCsp] as RouteOptions['onSend'];
  });
  const script = registerScript(fastify, scalarBundle());
  registerScript(fastify, repairAsset());
  for (const which of ['visitor', 'public'] as const) {
    const title = which === 'visitor' ? 'Visitor-management API' : 'Public content API';
    let shown: { from: OpenApiDocument; doc: OpenApiDocument } | null = null;
    await fastify.register(apiReference, {
      routePrefix: REFERENCE_PREFIX[which],
      configuration: {
        title: `${title} · Gatehouse`,
        metaData: { title: `${title} · Gatehouse` },
        // Built once per served document (the registry is filled before the routes are registered).
        content: () => {
          const from = registry.get(which);
          if (shown?.from !== from) shown = { from, doc: referenceDocument(from, which) };
          return shown.doc;
        },
        withDefaultFonts: false,
        customCss: REFERENCE_THEME,
        hideDownloadButton: false,
        // Scalar's own developer toolbar is for Scalar's developers, not for readers of this reference.
        showDeveloperTools: 'never',
        defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
        // the hashed, compressed, long-cached copy of the script (registerScript)
        cdn: script,
      },
    });
  }
}
