import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connect } from 'node:net';
import { Client as Pg } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { AppProcess, startAppProcess } from '../support/app-process';
import { RequestLogService } from '../../src/ops/request-log/request-log.service';
import { createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';

/** Whether something accepts TCP connections at `url`'s port on 127.0.0.1. */
const listening = (url: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(Number(new URL(url).port), '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/**
 * A SIGTERM to the compiled service while a tool call is in flight: the call is answered in full (the tool
 * server's handler closes only after the HTTP server has finished its requests, as the rest of the graceful
 * shutdown does) and the process exits 0. The call is held in flight by a real lock: this test's transaction holds
 * `visitor.visit` exclusively, so `list_visits` waits in PostgreSQL until the shutdown is under way (the port no
 * longer listens), then the lock is released.
 */
describe('the tool server on shutdown', () => {
  let t: TestApp;
  let pg: Pg;
  let child: AppProcess | undefined;
  let key: string;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    pg = new Pg({ connectionString: t.db.url });
    await pg.connect();
    key = await (await createOrg(t.app, 'pro')).key();
  }, 60_000);
  afterAll(async () => {
    if (child && child.child.exitCode === null) child.child.kill('SIGKILL');
    await pg.query('ROLLBACK').catch(() => undefined);
    await pg.end();
    await t.close();
  });

  it('answers an in-flight tools/call in full after SIGTERM, then exits 0', async () => {
    child = await startAppProcess(t.db.url, {
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
    });
    const client = new Client(
      { name: 'shutdown-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${child.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );

    await pg.query('BEGIN');
    await pg.query('LOCK TABLE visitor.visit IN ACCESS EXCLUSIVE MODE');
    const callStarted = new Date();
    const answer = client.callTool({ name: 'list_visits', arguments: { limit: 5 } });
    const settled = answer.then(
      () => 'answered',
      () => 'failed',
    );
    // the call is in flight: its query waits for this test's lock. Inside this test's transaction PostgreSQL shows
    // pg_stat_activity as it was at the first look unless the snapshot is cleared: without it, a call slower to
    // arrive than that first look (a loaded machine) was never seen.
    await until(async () => {
      await pg.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await pg.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE pid <> pg_backend_pid() AND datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(rows[0].n) > 0;
    }, 15_000);

    child.child.kill('SIGTERM');
    await until(async () => child!.output().includes('SIGTERM received'), 15_000);
    // the application is closing: its modules were told to stop and the HTTP server accepts nothing new
    await until(async () => !(await listening(child!.url)), 15_000);
    expect(await Promise.race([settled, Promise.resolve('in flight')])).toBe('in flight');

    await pg.query('ROLLBACK');
    const result = (await answer) as { structuredContent?: Record<string, unknown>; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: [], has_more: false });
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain('stopped');
    // the call answered during the stop is in the request log, where support finds it by its request id
    const log = await t.app
      .get(RequestLogService)
      .search(
        { from: new Date(Date.now() - 600_000), to: new Date(), path: '/mcp', status: '2xx' },
        100,
        null,
      );
    expect(log.entries.filter((e) => e.method === 'POST' && e.receivedAt >= callStarted)).toHaveLength(1);
    // and in the audit trail: a read's entry, written off the call's path, is written before the process exits
    const { rows: audited } = await pg.query<{ n: string }>(
      `SELECT count(*) AS n FROM visitor.audit_event
        WHERE action = 'mcp.tool_called' AND data->>'tool' = 'list_visits' AND created_at >= $1`,
      [callStarted],
    );
    expect(Number(audited[0].n)).toBe(1);
  }, 90_000);
});
