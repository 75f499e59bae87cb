/**
 * The baseline of `npm run bench -- public`, in its own process: bare Fastify and a TypeORM DataSource; each
 * route calls the endpoint's controller method directly (same SQL, same mapping) and sends the JSON.
 *
 * Beside each baseline route, a "headers floor" route does the same and also sends the response headers that
 * Gatehouse's contract puts on a keyed 200 (Svc-Request-Id, the CORS pair, RateLimit-*, ETag, Cache-Control), with
 * values of the same length, made as cheaply as possible (no key, no counter trip, no log). Its throughput is
 * the most any implementation of the contract could reach here, since the load generator shares the two cores
 * and pays for every header it parses.
 *
 * A "contract floor" route (`/c/<index>`) adds the per-request work the contract cannot do without, done in
 * memory with Gatehouse's own code and no framework: the x-api-key checked by PublicKeysService (its database
 * read at most once per KEY_CACHE_MS, as in the app) and its use counted, a request id, a per-key counter for
 * RateLimit-Remaining, and the request's log line written into a LogBatch (dropped when full, never stored). It
 * leaves out what an instance of Gatehouse also pays for: the counter shared through Redis, the log written to
 * PostgreSQL, Nest and the hooks of a whole application. So it stands above any implementation of the contract.
 */
import 'reflect-metadata';
import Fastify, { type FastifyReply } from 'fastify';
import { createDataSource } from '../src/database/data-source.factory';
import { strongEtag } from '../src/content/platform/public-pipeline';
import { EXPOSED_HEADERS as EXPOSED } from '../src/common/http/surface';
import { PublicKeysRepository } from '../src/content/platform/public-keys.repository';
import { PublicKeysService } from '../src/content/platform/public-keys.service';
import { LogBatch } from '../src/ops/request-log/request-log.entry';
import { newRequestId } from '../src/common/ids';
import { Clock } from '../src/common/clock';
import { controllers, ENDPOINTS, Samples } from './public-endpoints';

async function main() {
  const ds = await createDataSource({
    url: String(process.env.DATABASE_URL),
    poolSize: 10,
    applicationName: 'bench-baseline',
  }).initialize();
  const c = controllers(ds);
  const s = JSON.parse(String(process.env.BENCH_SAMPLES)) as Samples;
  const app = Fastify({ logger: false });
  // GET /b/<index of the endpoint in ENDPOINTS>: the baseline.
  ENDPOINTS.forEach((e, i) => app.get(`/b/${i}`, () => e.baseline(c, s)));
  // GET /f/<index>: the headers floor; GET /c/<index>: the contract floor.
  const keys = new PublicKeysService(new PublicKeysRepository(ds), new Clock());
  const counted = new Map<string, number>();
  let batch = new LogBatch();
  let n = 0;
  ENDPOINTS.forEach((e, i) => {
    let last = { body: '', etag: '' };
    const respond = async (reply: FastifyReply, requestId: string, remaining: number) => {
      const body = JSON.stringify(await e.baseline(c, s));
      if (body !== last.body) last = { body, etag: strongEtag(body) };
      return reply
        .header('Svc-Request-Id', requestId)
        .header('Access-Control-Allow-Origin', '*')
        .header('Access-Control-Expose-Headers', EXPOSED)
        .header('RateLimit-Limit', '100000000')
        .header('RateLimit-Remaining', String(remaining))
        .header('RateLimit-Reset', '60')
        .header('ETag', last.etag)
        .header('Cache-Control', 'private, max-age=60')
        .type('application/json; charset=utf-8')
        .send(body);
    };
    app.get(`/f/${i}`, (_req, reply) => {
      n = (n + 1) % 1e8;
      return respond(reply, `req_0Vbtd${String(n).padStart(17, '0')}`, 99_999_999 - n);
    });
    app.get(`/c/${i}`, async (req, reply) => {
      const receivedAt = new Date();
      const requestId = newRequestId(receivedAt.getTime());
      const value = req.headers['x-api-key'];
      let keyId = typeof value === 'string' ? keys.resolveCached(value) : null;
      if (keyId === undefined) keyId = await keys.resolve(value as string);
      if (keyId === null || keyId === 'revoked') return reply.code(401).send();
      keys.countUse(keyId);
      const used = (counted.get(keyId) ?? 0) + 1;
      counted.set(keyId, used);
      await respond(reply, requestId, 100_000_000 - used);
      batch.add({
        requestId,
        errorRef: null,
        receivedAt,
        surface: 'public',
        method: req.method,
        path: req.url,
        status: reply.statusCode,
        errorCode: null,
        durationMs: reply.elapsedTime,
        clientIp: req.ip,
        organisationId: null,
        credentialId: keyId,
        livemode: null,
      });
      if (batch.count >= 500) batch = new LogBatch();
      return reply;
    });
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => ds.destroy())
        .then(() => process.exit(0)),
  );
  process.send?.('ready');
}

void main();
