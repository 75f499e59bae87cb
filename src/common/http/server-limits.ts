import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Config } from '../../config/config';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The HTTP server with the limits that stop slow or stuck clients from holding connections: a request's
 * headers must arrive within `headersTimeoutMs` and the whole request (body included) within `requestTimeoutMs`
 * of its start, or Node answers 408 and closes the connection; an idle keep-alive connection is closed after
 * `keepAliveTimeoutMs`; at most `maxConnections` are open at once (further ones are closed as they arrive).
 * Node checks the two request timeouts on a timer (30 s by default, which would let a 10 s limit run to 40 s):
 * here it runs every quarter of the shorter timeout, at most every second.
 *
 * Given to Fastify as its `serverFactory`, so the server is built once with these settings.
 */
export function limitedServerFactory(limits: Config['http']): (handler: Handler) => Server {
  return (handler) => {
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: Math.max(
          25,
          Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
        ),
      },
      handler,
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.maxConnections = limits.maxConnections;
    return server;
  };
}
