/**
 * The baseline of `npm run bench -- public`, in its own process: bare Fastify and a TypeORM DataSource; each
 * route calls the endpoint's controller method directly (same SQL, same mapping) and sends the JSON.
 */
import 'reflect-metadata';
import Fastify from 'fastify';
import { createDataSource } from '../src/database/data-source.factory';
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
  // GET /b/<index of the endpoint in ENDPOINTS>
  ENDPOINTS.forEach((e, i) => app.get(`/b/${i}`, () => e.baseline(c, s)));
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
