import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { bootTestApp, TestApp } from '../harness';
import { until } from '../support/until';
import { RequestLogService } from '../../src/ops/request-log/request-log.service';
import { RequestLogRepository } from '../../src/ops/request-log/request-log.repository';
import { PeriodicScheduler } from '../../src/common/periodic';
import { newRequestId } from '../../src/common/ids';
import { RequestLogEntry } from '../../src/ops/request-log/request-log.entry';
import { Clock } from '../../src/common/clock';
import { CONFIG } from '../../src/config/config.module';
import type { Config } from '../../src/config/config';

const run = promisify(execFile);

describe('request log for support', () => {
  let t: TestApp;
  let pg: Client;
  const operator = { authorization: 'Bearer operator-token-for-tests-000000' };

  beforeAll(async () => {
    // Writes happen when a test flushes (the support lookup flushes too), not on a timer, so what a flush stores
    // does not depend on how fast the machine runs the test.
    t = await bootTestApp({
      env: { OPERATOR_TOKEN: 'operator-token-for-tests-000000', REQUEST_LOG_FLUSH_MS: '60000' },
    });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  /** An entry with plain values, changed by `over`. */
  const entry = (over: Partial<RequestLogEntry>): RequestLogEntry => ({
    requestId: newRequestId(),
    errorRef: null,
    receivedAt: new Date(),
    surface: 'public',
    method: 'GET',
    path: '/public/v1/stats',
    status: 200,
    errorCode: null,
    durationMs: 0.5,
    clientIp: '127.0.0.1',
    organisationId: null,
    credentialId: null,
    livemode: null,
    ...over,
  });

  /** A log service of its own over the test database, with its request-log settings changed by `over`. */
  const logWith = (over: Partial<Config['requestLog']>) => {
    const config = t.app.get<Config>(CONFIG);
    return new RequestLogService(t.app.get(RequestLogRepository), new Clock(), {
      ...config,
      requestLog: { ...config.requestLog, ...over },
    });
  };

  const lookup = (idOrRef: string) =>
    t.app.inject({
      method: 'GET',
      url: `/console/support/requests/${encodeURIComponent(idOrRef)}`,
      headers: operator,
    });

  it('gives back every value exactly as stored, whatever characters it holds (line format escaping)', async () => {
    const awkward = 'a\\b\tc\nd\re \\N \\. \u00e9\u{1F600}';
    const rows = [
      {
        requestId: 'req_copytest0000000000001',
        errorRef: null,
        receivedAt: new Date('2026-01-02T03:04:05.678Z'),
        surface: 'public',
        method: 'GET',
        path: `/public/v1/x?q=${awkward}`,
        status: 200,
        errorCode: null,
        durationMs: 1.25,
        clientIp: null,
        organisationId: null,
        credentialId: awkward,
        livemode: null,
      },
      {
        requestId: 'req_copytest0000000000002',
        errorRef: 'ERR-AAAA-BBBB-CCCC',
        receivedAt: new Date('2026-01-02T03:04:06Z'),
        surface: 'visitor',
        method: 'POST',
        path: '\\N',
        status: 422,
        errorCode: 'validation_failed',
        durationMs: 0,
        clientIp: '::1',
        organisationId: 'org_1',
        credentialId: null,
        livemode: false,
      },
    ];
    const repo = t.app.get(RequestLogRepository);
    await repo.insertMany(rows);
    for (const r of rows) expect(await repo.findByIdOrRef(r.requestId)).toEqual([r]);
    expect(await repo.findByIdOrRef('err-aaaa-bbbb-cccc')).toEqual([rows[1]]);

    // The stored lines are COPY text format: PostgreSQL's own COPY reads them back to the same values.
    const { rows: batches } = await pg.query(
      'SELECT lines FROM ops.request_log_batch WHERE request_ids @> $1::text',
      [rows[0].requestId],
    );
    await pg.query(`CREATE TEMP TABLE copied (request_id text, error_ref text, received_at timestamptz,
      surface text, method text, path text, status smallint, error_code text, duration_ms real, client_ip text,
      organisation_id text, credential_id text, livemode boolean)`);
    await new Promise<void>((resolve, reject) => {
      const stream = pg.query(copyFrom('COPY copied FROM STDIN'));
      stream.on('finish', resolve);
      stream.on('error', reject);
      stream.end(batches[0].lines);
    });
    const { rows: copied } = await pg.query('SELECT * FROM copied ORDER BY request_id');
    expect(copied).toEqual(
      rows.map((r) => ({
        request_id: r.requestId,
        error_ref: r.errorRef,
        received_at: r.receivedAt,
        surface: r.surface,
        method: r.method,
        path: r.path,
        status: r.status,
        error_code: r.errorCode,
        duration_ms: r.durationMs,
        client_ip: r.clientIp,
        organisation_id: r.organisationId,
        credential_id: r.credentialId,
        livemode: r.livemode,
      })),
    );
  });

  it('finds a public error by its ref and a visitor error by its request id (the done-when scenario)', async () => {
    const pub = await t.app.inject({ method: 'GET', url: '/public/v1/nope' });
    const ref = pub.json().error.ref as string;
    const vis = await t.app.inject({
      method: 'POST',
      url: '/v1/anything',
      headers: { 'content-type': 'application/json' },
      payload: '{bad',
    });
    const id = vis.headers['svc-request-id'] as string;

    const byRef = await lookup(ref.toLowerCase());
    expect(byRef.statusCode).toBe(200);
    expect(byRef.json().data).toEqual([
      expect.objectContaining({
        request_id: pub.headers['svc-request-id'],
        error_ref: ref,
        surface: 'public',
        method: 'GET',
        path: '/public/v1/nope',
        status: 404,
        error_code: 'NOT_FOUND',
        client_ip: '127.0.0.1',
        organisation_id: null,
        credential_id: null,
        livemode: null,
      }),
    ]);
    const row = byRef.json().data[0];
    expect(Object.keys(row).sort()).toEqual(
      [
        'client_ip',
        'credential_id',
        'duration_ms',
        'error_code',
        'error_ref',
        'livemode',
        'method',
        'organisation_id',
        'path',
        'received_at',
        'request_id',
        'status',
        'surface',
      ].sort(),
    );
    expect(typeof row.duration_ms).toBe('number');
    expect(Date.parse(row.received_at)).toBeGreaterThan(Date.now() - 60_000);

    const byId = await lookup(id);
    expect(byId.json().data[0]).toMatchObject({
      request_id: id,
      surface: 'visitor',
      method: 'POST',
      path: '/v1/anything',
      status: 404, // no such route, whatever the body (method before body)
      error_code: 'not_found',
      error_ref: null,
    });
  });

  it('the CLI finds the same request (npx gatehouse support request <id-or-ref>)', async () => {
    const pub = await t.app.inject({ method: 'GET', url: '/public/v1/also-nope' });
    const ref = pub.json().error.ref as string;
    await t.app.get(RequestLogService).flush();
    const { stdout } = await run(process.execPath, ['dist/src/cli.js', 'support', 'request', ref], {
      env: { ...process.env, DATABASE_URL: t.db.url, NODE_ENV: 'test' },
    });
    expect(JSON.parse(stdout).data[0]).toMatchObject({
      error_ref: ref,
      path: '/public/v1/also-nope',
      status: 404,
    });

    const missing = await run(
      process.execPath,
      ['dist/src/cli.js', 'support', 'request', 'req_doesnotexist'],
      {
        env: { ...process.env, DATABASE_URL: t.db.url, NODE_ENV: 'test' },
      },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no request found for req_doesnotexist'),
    });
  });

  it('the support endpoint needs the operator token', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/console/support/requests/req_x' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({
      code: 'unauthorized',
      errors: [{ location: 'header.Authorization' }],
    });
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/console/support/requests/req_x',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.statusCode).toBe(401);
    const unknown = await lookup('req_unknown000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
  });

  it('stores no secret query values', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/nothing?api_key=svc_sk_live_abc&token=t0k&page=2',
    });
    const row = (await lookup(res.headers['svc-request-id'] as string)).json().data[0];
    expect(row.path).toBe('/v1/nothing?api_key=%5Bredacted%5D&token=%5Bredacted%5D&page=2');
    const { rows } = await pg.query(
      `SELECT 1 FROM ops.request_log_batch WHERE lines LIKE '%svc_sk_live_abc%' OR lines LIKE '%t0k%'`,
    );
    expect(rows).toEqual([]);
  });

  it('a failed write never fails the request, and the rows arrive once the database accepts them again', async () => {
    await t.app.get(RequestLogService).flush();
    await pg.query('ALTER TABLE ops.request_log_batch RENAME TO request_log_away');
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/health/live' });
        expect(res.statusCode).toBe(200);
        ids.push(res.headers['svc-request-id'] as string);
      }
      await t.app.get(RequestLogService).flush(); // fails and keeps the rows
      const res = await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' });
      expect(res.statusCode).toBe(200);
      await pg.query('ALTER TABLE ops.request_log_away RENAME TO request_log_batch');
      await t.app.get(RequestLogService).flush();
      for (const id of ids)
        expect((await lookup(id)).json().data).toEqual([expect.objectContaining({ request_id: id })]);
    } finally {
      await pg.query('ALTER TABLE IF EXISTS ops.request_log_away RENAME TO request_log_batch');
    }
  });

  it('while writes fail it holds at most REQUEST_LOG_MAX_BUFFER requests, dropping the oldest, and writes the rest later', async () => {
    const log = logWith({ batchSize: 3, maxBuffer: 7 });
    const rows = Array.from({ length: 12 }, () => entry({}));
    await pg.query('ALTER TABLE ops.request_log_batch RENAME TO request_log_away');
    try {
      for (const r of rows) log.record(r); // every third fills a batch, whose write fails
      await log.flush();
    } finally {
      await pg.query('ALTER TABLE IF EXISTS ops.request_log_away RENAME TO request_log_batch');
    }
    await log.flush();
    const found = await Promise.all(rows.map(async (r) => (await lookup(r.requestId)).statusCode));
    // 12 recorded in batches of 3, at most 7 held: the two oldest batches went, the last six arrived.
    expect(found).toEqual([404, 404, 404, 404, 404, 404, 200, 200, 200, 200, 200, 200]);
  });

  it('a busy instance writes full batches, not a small batch per database round trip', async () => {
    const log = logWith({ batchSize: 50 });
    const rows = Array.from({ length: 120 }, () => entry({}));
    const ids = rows.map((r) => r.requestId).sort(); // ids of one millisecond are in no particular order
    const stored = async () =>
      (
        await pg.query(
          `SELECT row_count FROM ops.request_log_batch WHERE request_ids && ops.request_id_range($1, $2, '[]')
            ORDER BY first_received_at, row_count DESC`,
          [ids[0], ids[119]],
        )
      ).rows as { row_count: number }[];
    // The 50th fills a batch and starts its write; the 51st arrives while it is under way.
    for (const r of rows.slice(0, 51)) log.record(r);
    await until(async () => (await stored()).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The write has ended, and the one request that came meanwhile waits for its batch to fill.
    expect(await stored()).toEqual([{ row_count: 50 }]);
    for (const r of rows.slice(51)) log.record(r);
    await log.flush();
    expect(await stored()).toEqual([{ row_count: 50 }, { row_count: 50 }, { row_count: 20 }]);
  });

  it('stores the requests of a flush as one row; ids sort in arrival order and each is found', async () => {
    const repo = t.app.get(RequestLogRepository);
    await t.app.get(RequestLogService).flush(); // what earlier tests left buffered
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/health/live' });
      ids.push(res.headers['svc-request-id'] as string);
      await new Promise((r) => setTimeout(r, 2)); // the next request in a later millisecond
    }
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect([...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))).toEqual(ids);
    await t.app.get(RequestLogService).flush();
    const { rows } = await pg.query(
      `SELECT row_count FROM ops.request_log_batch WHERE request_ids && ops.request_id_range($1, $2, '[]')`,
      [ids[0], ids[19]],
    );
    expect(rows).toEqual([{ row_count: 20 }]);
    for (const id of ids)
      expect(await repo.findByIdOrRef(id)).toEqual([expect.objectContaining({ requestId: id, status: 200 })]);
  });

  it('a batch stored twice (a retry after an ambiguous failure) shows the request once', async () => {
    const row = entry({});
    await t.app.get(RequestLogRepository).insertMany([row]);
    await t.app.get(RequestLogRepository).insertMany([row]);
    const res = await lookup(row.requestId);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([expect.objectContaining({ request_id: row.requestId, status: 200 })]);
  });

  it('the retention purge deletes requests older than the retention period only', async () => {
    const repo = t.app.get(RequestLogRepository);
    const daysAgo = (requestId: string, days: number) =>
      entry({ requestId, receivedAt: new Date(Date.now() - days * 86_400_000) });
    await repo.insertMany([daysAgo('req_old', 31), daysAgo('req_older', 32)]);
    await repo.insertMany([daysAgo('req_recent', 29)]);
    expect(await t.app.get(PeriodicScheduler).run('request-log.purge')).toBeGreaterThanOrEqual(2);
    expect(await repo.findByIdOrRef('req_old')).toEqual([]);
    expect(await repo.findByIdOrRef('req_older')).toEqual([]);
    expect(await repo.findByIdOrRef('req_recent')).toEqual([
      expect.objectContaining({ requestId: 'req_recent' }),
    ]);
  });
});
