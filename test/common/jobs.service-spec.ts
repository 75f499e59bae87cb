import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { JobQueue } from '../../src/common/queue/job-queue';
import { passJob } from '../../src/visitor/visits/pass-job';
import { bootServiceContext, createTestDatabase, ServiceContext, TestDatabase } from '../harness';
import { until } from '../support/until';
import {
  JOB_PROBE_TABLE,
  JOB_PROBE_TABLE_DDL,
  JobProbeProducerModule,
  JobProbeWorkerModule,
} from '../fixtures/job-probe.module';

/**
 * `JobQueue` takes only declared job names, each with its payload: compiled by `npm run lint` (tsc), never called,
 * each line fails to type-check.
 */
function typeChecks(jobs: JobQueue): void {
  // @ts-expect-error an undeclared job name
  void jobs.add('probe.unknown', [{ data: { id: 'x', n: 1 } }]);
  // @ts-expect-error a payload of another shape
  void jobs.add('probe.echo', [{ data: { passId: 'x' } }]);
  // @ts-expect-error a payload of another job
  jobs.addSoon('visits.send-pass', { id: 'x', n: 1 });
}
void typeChecks;

/**
 * Jobs handed to workers are declared once (a name in the `Jobs` map, a `JobKind`, a `@JobProcessor`): a worker
 * whose domains add a job that nothing handles refuses to start, and `JobQueue.add` takes only declared names
 * with their payload's type.
 */
describe('typed jobs', () => {
  let db: TestDatabase;
  let pg: Client;
  const apps: ServiceContext[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await pg.query(JOB_PROBE_TABLE_DDL);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  afterAll(async () => {
    await pg.end();
    await db.drop();
  });

  /** A process that adds the probe jobs and runs no worker. */
  const producer = async () => {
    const app = await bootServiceContext({
      db,
      env: { ...env(), RUN_WORKER: 'false' },
      extraModules: [JobProbeProducerModule],
    });
    apps.push(app);
    return app;
  };

  /** The probe rows whose id starts with `prefix`, by id, once there are `count` of them. */
  const probeRows = (prefix: string, count: number) =>
    until(async () => {
      const r = await pg.query<{ id: string; n: number }>(
        `SELECT id, n FROM ${JOB_PROBE_TABLE} WHERE id LIKE $1 ORDER BY id`,
        [`${prefix}%`],
      );
      return r.rows.length === count && r.rows;
    }, 30_000);

  const env = () => ({
    SURFACES: 'docs',
    RUN_WORKER: 'true',
    REDIS_KEY_PREFIX: `ghtest:${randomBytes(6).toString('hex')}`,
  });

  it('a worker refuses to start when a job it may be given has no handler', async () => {
    await expect(
      bootServiceContext({ db, env: env(), extraModules: [JobProbeProducerModule] }),
    ).rejects.toThrow('the worker refuses to start: job probe.echo has no handler (a @JobProcessor class)');
  });

  it('a process without the worker adds the job all the same (a worker elsewhere handles it)', async () => {
    const app = await producer();
    expect(app.app.get(JobQueue)).toBeInstanceOf(JobQueue);
  });

  it('a job added soon of a kind this process did not register is logged, not thrown', async () => {
    const jobs = (await producer()).app.get(JobQueue);
    // The docs surface loads no visits domain: `visits.send-pass` is declared but has no queue here.
    jobs.addSoon('visits.send-pass', passJob(['pass_unqueued']));
    jobs.addSoon('visits.send-pass', passJob(['pass_unqueued_too']));
    await new Promise((r) => setImmediate(r));
    await expect(jobs.onModuleDestroy()).resolves.toBeUndefined();
  });

  it('with its handler the worker starts, and a job added by name reaches it once per id', async () => {
    const app = await bootServiceContext({ db, env: env(), extraModules: [JobProbeWorkerModule] });
    apps.push(app);
    const jobs = app.app.get(JobQueue);
    // BullMQ refuses a custom id that reads as an integer (`Custom Id cannot be integers`): all-digit hex happens.
    const id = `probe-${randomBytes(6).toString('hex')}`;
    await jobs.add('probe.echo', [{ data: { id, n: 1 } }, { data: { id, n: 2 } }]);
    jobs.addSoon('probe.echo', { id: `${id}-soon`, n: 3 });
    expect(await probeRows(id, 2)).toEqual([
      { id, n: 1 },
      { id: `${id}-soon`, n: 3 },
    ]);
  });

  it('the jobs a turn adds of a kind that merges them reach its handler as one job, in order', async () => {
    const app = await bootServiceContext({ db, env: env(), extraModules: [JobProbeWorkerModule] });
    apps.push(app);
    const jobs = app.app.get(JobQueue);
    const id = `batch-${randomBytes(6).toString('hex')}`;
    for (const n of [1, 2, 3]) jobs.addSoon('probe.batch', { ids: [`${id}-${n}`] });
    // A later turn's job goes on its own.
    setImmediate(() => setImmediate(() => jobs.addSoon('probe.batch', { ids: [`${id}-4`] })));
    expect(await probeRows(id, 2)).toEqual([
      { id: `${id}-1+${id}-2+${id}-3`, n: 3 },
      { id: `${id}-4`, n: 1 },
    ]);
  });
});
