import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LogBatch, parseLine, RequestLogEntry } from './request-log.entry';
import { change, rows } from '../../database/sql';

/** Lookups answer at most this many requests, newest first. */
const LOOKUP_LIMIT = 10;

/**
 * `ops.request_log_batch`: the request log, one row per write of up to REQUEST_LOG_BATCH_SIZE requests (see the
 * migration RequestLogBatches and request-log.entry.ts for the line format).
 */
@Injectable()
export class RequestLogRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Stores entries as one batch. */
  insertMany(rows: RequestLogEntry[]): Promise<void> {
    const batch = new LogBatch();
    for (const r of rows) batch.add(r);
    return this.write(batch);
  }

  /**
   * Stores a batch as one row: one INSERT, all or nothing. A batch written twice (a retry after an
   * acknowledgement was lost) is harmless: lookups show each request once.
   */
  async write(b: LogBatch): Promise<void> {
    if (b.count === 0) return;
    await this.ds.query(
      `INSERT INTO ops.request_log_batch (request_ids, first_received_at, last_received_at, error_refs, row_count, lines)
       VALUES (ops.request_id_range($1, $2, '[]'), $3, $4, $5, $6, $7)`,
      // The lines go as bytes (pg sends a Buffer in binary format, which a text column takes as UTF-8 text).
      [b.firstId, b.lastId, b.firstAt, b.lastAt, b.errorRefs, b.count, b.lines()],
    );
    // The test-mode request streams (src/visitor/event-stream) of every instance read the batch once written.
    if (b.testMode)
      await this.ds
        .query(`SELECT pg_notify('gatehouse_request_log', $1)`, [`${b.firstId} ${b.lastId}`])
        .catch(() => undefined);
  }

  /** The requests of the batch written with request ids `firstId` to `lastId` (as notified after its write). */
  async batch(firstId: string, lastId: string): Promise<RequestLogEntry[]> {
    const found = await rows<{ lines: string }>(
      this.ds,
      `SELECT lines FROM ops.request_log_batch WHERE request_ids = ops.request_id_range($1, $2, '[]') LIMIT 1`,
      [firstId, lastId],
    );
    return (found[0]?.lines ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map(parseLine);
  }

  /** Newest first; a request id matches one request, a ref matches the failed request it was given to. */
  async findByIdOrRef(idOrRef: string): Promise<RequestLogEntry[]> {
    const ref = idOrRef.toUpperCase();
    const batches = (await this.ds.query(
      `SELECT lines FROM ops.request_log_batch WHERE request_ids @> $1::text
       UNION ALL
       SELECT lines FROM ops.request_log_batch WHERE cardinality(error_refs) > 0 AND error_refs @> ARRAY[$2::text]`,
      [idOrRef, ref],
    )) as { lines: string }[];
    const found = new Map<string, RequestLogEntry>();
    for (const { lines } of batches)
      for (const line of lines.split('\n')) {
        if (line === '') continue;
        const e = parseLine(line);
        if (e.requestId === idOrRef || e.errorRef === ref) found.set(e.requestId, e);
      }
    return [...found.values()]
      .sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime())
      .slice(0, LOOKUP_LIMIT);
  }

  /**
   * The lines of the batches that may hold requests received from `from` to `to`, newest batch first (by its last
   * request), `count` batches after the first `skip` (the last_received_at index).
   */
  async batchesNewestFirst(
    from: Date,
    to: Date,
    skip: number,
    count: number,
  ): Promise<{ lines: string; last_received_at: Date }[]> {
    return rows<{ lines: string; last_received_at: Date }>(
      this.ds,
      `SELECT lines, last_received_at FROM ops.request_log_batch
        WHERE last_received_at >= $1 AND first_received_at <= $2
        ORDER BY last_received_at DESC LIMIT $3 OFFSET $4`,
      [from, to, count, skip],
    );
  }

  /**
   * Deletes batches whose newest request is older than `before`, a few thousand at a time so the purge never
   * holds long locks. Returns the number of requests deleted.
   */
  async purgeOlderThan(before: Date, batch = 1_000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await change<{ row_count: number }>(
        this.ds,
        `DELETE FROM ops.request_log_batch
          WHERE ctid = ANY(ARRAY(SELECT ctid FROM ops.request_log_batch WHERE last_received_at < $1 LIMIT $2))
          RETURNING row_count`,
        [before, batch],
      );
      total += deleted.rows.reduce((a, r) => a + Number(r.row_count), 0);
      if (deleted.affected < batch) return total;
    }
  }
}
