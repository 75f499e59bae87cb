import fp from 'fastify-plugin';
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import type { ErrorRenderer } from '../../common/errors/error-renderer';
import { PREFIX } from '../../common/http/surface';
import type { DirectHandler } from './public-dispatch';
import type { PublicPipeline } from './public-pipeline';

export interface PublicPluginOptions {
  /** The pipeline whose hooks the routes run (its onModuleInit may not have run yet: it is read per request). */
  pipeline: PublicPipeline;
  /**
   * Renders the errors of the plugin's own route (the preflight): it is registered before Nest sets its error
   * handler, so without this a refusal in a global hook (an encoded NUL in the URL) would be Fastify's own 500.
   */
  renderer: ErrorRenderer;
}

/**
 * The /public/v1 request path as one Fastify plugin, registered once (createApp, only when the public surface is
 * served): the CORS preflight of every /public/v1 path, and on each /public/v1 GET and HEAD route the pipeline's
 * onRequest (CORS, query string, key, rate limit, unknown query parameters), its onSend (ETag, 304,
 * Cache-Control) and the direct handler. No other surface's route gets any of it.
 *
 * Nest registers every controller's routes on the root Fastify instance, not inside a plugin's prefix, so an
 * encapsulated plugin (`register(plugin, { prefix })`) would never see them. This one is therefore not
 * encapsulated (fastify-plugin): its `onRoute` hook sees every route registered after it and adds the hooks as
 * route-level hooks to those under /public/v1, which is what a prefix plugin's hooks would amount to. It must be
 * registered before Nest registers its routes (before `app.init()`).
 */
const plugin: FastifyPluginCallback<PublicPluginOptions> = (fastify, opts, done) => {
  const { pipeline, renderer } = opts;
  fastify.addHook('onRoute', (route) => attach(route, pipeline));
  // Cross-origin GET is enabled for the public content API only: its routes set the CORS response headers
  // (PublicPipeline.onRequest); this answers browsers' preflight requests for them. Other surfaces answer none.
  const errorHandler = (err: Error, req: FastifyRequest, reply: FastifyReply) =>
    renderer.send(err, req, reply);
  fastify.options(`${PREFIX.public}/*`, { errorHandler }, (req, reply) => {
    const asked = req.headers['access-control-request-headers'];
    void reply
      .code(204)
      .header('Access-Control-Allow-Origin', '*')
      .header('Access-Control-Allow-Methods', 'GET, HEAD')
      .header('Access-Control-Max-Age', '600');
    if (asked)
      void reply
        .header('Access-Control-Allow-Headers', asked)
        .header('Vary', 'Access-Control-Request-Headers');
    void reply.send();
  });
  done();
};

export const publicPlugin = fp(plugin, { name: 'gatehouse-public', fastify: '5.x' });

/** Adds the pipeline's hooks and direct handler to a route being registered when it is a /public/v1 GET or HEAD. */
function attach(route: RouteOptions, pipeline: PublicPipeline): void {
  const path = route.url;
  if (path !== PREFIX.public && !path.startsWith(`${PREFIX.public}/`)) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.every((m) => m === 'GET' || m === 'HEAD')) return;
  const onRequest = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) =>
    pipeline.onRequest(req, reply, done);
  const onSend = (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) =>
    done(null, pipeline.onSend(req, reply, payload));
  route.onRequest = [...asList(route.onRequest), onRequest] as RouteOptions['onRequest'];
  const nest = route.handler;
  let direct: DirectHandler | null | undefined;
  let tables: readonly string[] | null = null;
  route.handler = function (this: FastifyInstance, req, reply) {
    // Looked up at the first request: the direct handlers are built once the application is initialised.
    if (direct === undefined) {
      direct = pipeline.directFor(route.url);
      tables = pipeline.tablesFor(route.url);
    }
    if (!direct) return nest.call(this, req, reply);
    // A GET revalidation of a route whose tables are declared may be answered from their versions; a HEAD runs the
    // handler (its 304 carries the 200 body's Content-Length, which only the body gives).
    if (tables && req.method === 'GET' && req.headers['if-none-match'] !== undefined)
      return pipeline.conditional(req, reply, tables, direct);
    return direct(req, reply);
  } as RouteHandlerMethod;
  // First, so that on a HEAD route it sees the GET body before Fastify's HEAD handler empties it.
  route.onSend = [onSend, ...asList(route.onSend)] as RouteOptions['onSend'];
}

type Done = (err: Error | null, payload?: unknown) => void;
const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
