/**
 * The baseline of `npm run bench -- public`, in its own process: bare Fastify and a TypeORM DataSource; each
 * route calls the endpoint's controller method directly (same SQL, same mapping) and sends the JSON.
 *
 * Beside each baseline route, a "headers floor" route does the same and also sends the response headers that
 * Gatehouse's contract puts on a keyed 200 (Svc-Request-Id, the CORS pair, RateLimit-*, ETag, Cache-Control), with
 * values of the same length, made as cheaply as possible (no key, no counter trip, no log). Its throughput is
 * the most any implementation of the contract could reach here, since the load generator shares the two cores
 * and pays for every header it parses.
 */
import 'reflect-metadata';
import Fastify from 'fastify';
import { createDataSource } from '../src/database/data-source.factory';
import { EXPOSED, strongEtag } from '../src/content/platform/public-pipeline';
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
  // GET /f/<index>: the headers floor.
  let n = 0;
  ENDPOINTS.forEach((e, i) => {
    let last = { body: '', etag: '' };
    app.get(`/f/${i}`, async (_req, reply) => {
      const body = JSON.stringify(await e.baseline(c, s));
      if (body !== last.body) last = { body, etag: strongEtag(body) };
      n = (n + 1) % 1e8;
      return reply
        .header('Svc-Request-Id', `req_0Vbtd${String(n).padStart(17, '0')}`)
        .header('Access-Control-Allow-Origin', '*')
        .header('Access-Control-Expose-Headers', EXPOSED)
        .header('RateLimit-Limit', '100000000')
        .header('RateLimit-Remaining', String(99_999_999 - n))
        .header('RateLimit-Reset', '60')
        .header('ETag', last.etag)
        .header('Cache-Control', 'private, max-age=60')
        .type('application/json; charset=utf-8')
        .send(body);
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
