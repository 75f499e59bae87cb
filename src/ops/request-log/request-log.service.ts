import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { RequestLogRepository } from './request-log.repository';
import { LogBatch, parseLine, RequestLogEntry } from './request-log.entry';

/** Batches read per round trip of a search, and at most per search (SEARCH_MAX_BATCHES × batch size requests). */
const SEARCH_CHUNK = 20;
const SEARCH_MAX_BATCHES = 400;

/** What a search of the log keeps: all given conditions hold. */
export interface RequestLogFilter {
  from: Date;
  to: Date;
  /** Only this organisation's requests (undefined: every organisation, for support staff). */
  organisationId?: string;
  surface?: string;
  livemode?: boolean;
  /** `2xx`, `4xx`, `5xx`, `failed` (400 and above) or one status code. */
  status?: string;
  /** Part of the path (and query). */
  path?: string;
  /** The credential's id or its beginning. */
  credential?: string;
}

export function matches(e: RequestLogEntry, f: RequestLogFilter): boolean {
  if (f.organisationId !== undefined && e.organisationId !== f.organisationId) return false;
  if (f.surface !== undefined && e.surface !== f.surface) return false;
  if (f.livemode !== undefined && e.livemode !== f.livemode) return false;
  if (e.receivedAt < f.from || e.receivedAt > f.to) return false;
  if (f.status) {
    const s = f.status;
    if (
      s === 'failed'
        ? e.status < 400
        : /^[1-5]xx$/.test(s)
          ? Math.floor(e.status / 100) !== +s[0]
          : e.status !== +s
    )
      return false;
  }
  if (f.path && !e.path.includes(f.path)) return false;
  if (f.credential && !(e.credentialId ?? '').startsWith(f.credential)) return false;
  return true;
}

/**
 * Buffers request-log entries in memory, each written as its line into the batch being filled (LogBatch), and
 * writes them off the request path, one stored row per batch of REQUEST_LOG_BATCH_SIZE (or whatever a timed
 * flush finds). A failed write never fails a request: batches stay buffered (bounded by REQUEST_LOG_MAX_BUFFER
 * requests, oldest batches dropped first) and are retried on the next flush; the failure is logged once until a
 * write succeeds again.
 */
@Injectable()
export class RequestLogService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('RequestLog');
  /** The batch being filled, and full batches not written yet (oldest first). */
  private current = new LogBatch();
  private full: LogBatch[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failing = false;
  private dropped = 0;

  constructor(
    private readonly repo: RequestLogRepository,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.requestLog.flushMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    if (this.held() > 0) await this.flush();
  }

  /**
   * After the HTTP server has finished its last requests (Nest closes it between the two shutdown hooks): what
   * they recorded meanwhile, so a request answered during a graceful stop is in the log too. The database closes
   * after this (DatabaseModule is global, so its hook runs last).
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.held() > 0) await this.flush();
  }

  record(row: RequestLogEntry): void {
    this.current.add(row);
    if (this.current.count < this.config.requestLog.batchSize) return;
    this.full.push(this.current);
    this.current = new LogBatch();
    this.trim();
    void this.flush();
  }

  /** Drops the oldest batches while more than REQUEST_LOG_MAX_BUFFER requests are held (while writes fail). */
  private trim(): void {
    let held = this.held();
    while (held > this.config.requestLog.maxBuffer && this.full.length > 0) {
      const dropped = this.full.shift()!;
      held -= dropped.count;
      this.dropped += dropped.count;
    }
  }

  /** Requests recorded and not written yet. */
  private held(): number {
    return this.full.reduce((n, b) => n + b.count, this.current.count);
  }

  /**
   * Writes everything recorded so far. Concurrent callers share one write loop, which goes on while full batches
   * wait; what arrives meanwhile fills the next batch, written when it is full or by the next timed flush, so a
   * busy instance writes batches of REQUEST_LOG_BATCH_SIZE rather than one small batch per database round trip.
   */
  flush(): Promise<void> {
    if (this.current.count > 0) {
      this.full.push(this.current);
      this.current = new LogBatch();
    }
    if (this.full.length === 0) return this.flushing ?? Promise.resolve();
    this.flushing ??= this.drain();
    return this.flushing;
  }

  /** Writes full batches, oldest first, until none is left or a write fails. */
  private async drain(): Promise<void> {
    try {
      while (this.full.length > 0) {
        const batch = this.full[0];
        try {
          await this.repo.write(batch);
        } catch (e) {
          if (!this.failing)
            this.logger.warn(
              `request log write failed, rows kept in memory and retried: ${(e as Error).message}`,
            );
          this.failing = true;
          return;
        }
        // Unless trim dropped it meanwhile (then it counted as dropped, though it arrived).
        if (this.full[0] === batch) this.full.shift();
        else this.dropped -= batch.count;
        if (this.failing || this.dropped > 0) {
          this.logger.log(
            `request log writes recovered${this.dropped ? `; ${this.dropped} rows were dropped while failing` : ''}`,
          );
          this.failing = false;
          this.dropped = 0;
        }
      }
    } finally {
      // In the same step as the loop's last check, so no caller is handed a loop that has already finished.
      this.flushing = null;
    }
  }

  /** The requests of one written batch (the test-mode request stream reads each batch it is told of). */
  batch(firstId: string, lastId: string): Promise<RequestLogEntry[]> {
    return this.repo.batch(firstId, lastId);
  }

  find(idOrRef: string): Promise<RequestLogEntry[]> {
    return this.repo.findByIdOrRef(idOrRef);
  }

  /**
   * A page of the log, newest first: the requests matching `f` received before `before` (the last one of the
   * previous page). Batches are read newest first and their lines filtered here, so a search reads at most
   * SEARCH_MAX_BATCHES batches (`exhausted` false then: narrow the dates to reach older requests).
   */
  async search(
    f: RequestLogFilter,
    limit: number,
    before: { at: Date; id: string } | null,
  ): Promise<{ entries: RequestLogEntry[]; hasMore: boolean; exhausted: boolean }> {
    await this.flush();
    const to = before && before.at < f.to ? before.at : f.to;
    const found = new Map<string, RequestLogEntry>();
    const newer = (a: RequestLogEntry, b: RequestLogEntry) =>
      b.receivedAt.getTime() - a.receivedAt.getTime() || (a.requestId < b.requestId ? 1 : -1);
    let skip = 0;
    for (;;) {
      const batches = await this.repo.batchesNewestFirst(f.from, to, skip, SEARCH_CHUNK);
      skip += batches.length;
      for (const { lines } of batches)
        for (const line of lines.split('\n')) {
          if (line === '') continue;
          const e = parseLine(line);
          if (!matches(e, f)) continue;
          if (
            before &&
            (e.receivedAt > before.at || (+e.receivedAt === +before.at && e.requestId >= before.id))
          )
            continue;
          found.set(e.requestId, e);
        }
      if (batches.length < SEARCH_CHUNK) break;
      if (found.size > limit) {
        // No later batch can hold a request newer than the page's last: its newest request is older.
        const last = [...found.values()].sort(newer)[limit];
        if (batches[batches.length - 1].last_received_at < last.receivedAt) break;
      }
      if (skip >= SEARCH_MAX_BATCHES) {
        const entries = [...found.values()].sort(newer);
        return { entries: entries.slice(0, limit), hasMore: entries.length > limit, exhausted: false };
      }
    }
    const entries = [...found.values()].sort(newer);
    return { entries: entries.slice(0, limit), hasMore: entries.length > limit, exhausted: true };
  }

  purge(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.requestLog.retentionDays * 86_400_000);
    return this.repo.purgeOlderThan(cutoff);
  }
}
