import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';
import type { ErrorRenderer } from '../errors/error-renderer';
import { newRequestId } from '../ids';

/** What every request gets before anything else: its context and `Svc-Request-Id` (app.factory's onRequest). */
export type StartRequest = (req: FastifyRequest, reply: FastifyReply) => void;

/**
 * Answers for requests Fastify or Node refuse before any route or hook runs, in the format of the surface they were
 * for (the public envelope with `ref` and CORS under /public/, problem details elsewhere), with `Svc-Request-Id`:
 *
 * - `frameworkErrors`: a path that is not valid percent-encoded UTF-8 (FST_ERR_BAD_URL) or has a segment longer
 *   than the router takes (FST_ERR_MAX_PARAM_LENGTH): `bad_request`, without echoing the path;
 * - `clientErrorHandler`: a request line and headers larger than Node accepts (HPE_HEADER_OVERFLOW, a 60 KB query
 *   string) keeps its 431 status with the surface's body (code `bad_request`); any other malformed request 400.
 *   The surface is read from the request line Node had received; when it cannot be read, and for 408 (the request
 *   never arrived in time), the answer is Fastify's own small JSON.
 *
 * `renderer` is read per request: the error renderer exists only once the application is built, after the server.
 */
export function frameworkErrorHandlers(renderer: () => ErrorRenderer | null, start: StartRequest) {
  return {
    frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
      start(req, reply);
      const r = renderer();
      if (r) r.send(error, req, reply);
      else void reply.code(400).send({ error: 'Bad Request', statusCode: 400 });
    },

    clientErrorHandler(err: ConnectionError, socket: Socket): void {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const status =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      // Node hands the bytes it had read as a Buffer (typed as its JSON form).
      const path = status === 408 ? null : requestPath(err.rawPacket as unknown as Buffer | undefined);
      const r = renderer();
      let head: Record<string, string>;
      let body: string;
      if (path !== null && r) {
        const requestId = newRequestId();
        const answer = r.render(
          status === 431
            ? new ApiError(
                'bad_request',
                'The request line and headers are larger than the server accepts; shorten the query string or headers.',
                [{ location: 'header', message: 'must be smaller in total' }],
              )
            : new ApiError('bad_request', 'The request could not be understood.'),
          path,
          requestId,
        );
        if ('status' in answer.body) answer.body.status = status;
        head = { ...answer.headers, 'Content-Type': answer.contentType, 'Svc-Request-Id': requestId };
        body = JSON.stringify(answer.body);
      } else {
        head = { 'Content-Type': 'application/json' };
        body = JSON.stringify({ error: STATUS_CODES[status], statusCode: status });
      }
      if (!socket.writable) return void socket.destroy();
      const lines = Object.entries({
        ...head,
        'Content-Length': String(Buffer.byteLength(body)),
        Connection: 'close',
      })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}\r\n${body}`);
    },
  };
}

/**
 * The path of the request line at the start of `raw` (what Node had received of a request it refused), or null.
 * Only its first kilobyte is read: enough to tell the surface, however long the rest is.
 */
export function requestPath(raw: Buffer | undefined): string | null {
  if (!raw) return null;
  const m = /^[A-Z]{3,10} (\/[^ ?#\r\n]*)/.exec(raw.toString('latin1', 0, Math.min(raw.length, 1024)));
  return m ? m[1] : null;
}
