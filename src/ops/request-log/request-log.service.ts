import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { RequestLogRepository } from './request-log.repository';
import { LogBatch, RequestLogEntry } from './request-log.entry';

/**
 * Buffers request-log entries in memory, each written as its line into the batch being filled (LogBatch), and
 * writes them off the request path, one stored row per batch of REQUEST_LOG_BATCH_SIZE (or whatever a timed
 * flush finds). A failed write never fails a request: batches stay buffered (bounded by REQUEST_LOG_MAX_BUFFER
 * requests, oldest batches dropped first) and are retried on the next flush; the failure is logged once until a
 * write succeeds again.
 */
@Injectable()
export class RequestLogService implements OnModuleInit, BeforeApplicationShutdown {
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

  find(idOrRef: string): Promise<RequestLogEntry[]> {
    return this.repo.findByIdOrRef(idOrRef);
  }

  purge(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.requestLog.retentionDays * 86_400_000);
    return this.repo.purgeOlderThan(cutoff);
  }
}
