import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { RequestLogRepository } from './request-log.repository';
import { logLine, RequestLogEntry } from './request-log.entry';

/**
 * Buffers request-log entries in memory, each already its line of text (a short-lived object, one string kept),
 * and writes them off the request path, one stored row per batch. A failed write never
 * fails a request: rows stay buffered (bounded by REQUEST_LOG_MAX_BUFFER, oldest dropped first) and are
 * retried on the next flush; the failure is logged once until a write succeeds again.
 */
@Injectable()
export class RequestLogService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('RequestLog');
  private buffer: string[] = [];
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
    if (this.buffer.length > 0) await this.flush();
  }

  record(row: RequestLogEntry): void {
    this.buffer.push(logLine(row));
    const overflow = this.buffer.length - this.config.requestLog.maxBuffer;
    if (overflow > 0) {
      this.buffer.splice(0, overflow);
      this.dropped += overflow;
    }
    if (this.buffer.length >= this.config.requestLog.batchSize) void this.flush();
  }

  /** Writes everything buffered so far; concurrent callers share one flush. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.drain().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const size = this.config.requestLog.batchSize;
      let batch: string[];
      if (this.buffer.length <= size) {
        batch = this.buffer;
        this.buffer = [];
      } else batch = this.buffer.splice(0, size);
      try {
        await this.repo.write(batch);
        if (this.failing || this.dropped > 0) {
          this.logger.log(
            `request log writes recovered${this.dropped ? `; ${this.dropped} rows were dropped while failing` : ''}`,
          );
          this.failing = false;
          this.dropped = 0;
        }
      } catch (e) {
        this.buffer.unshift(...batch);
        if (!this.failing)
          this.logger.warn(
            `request log write failed, rows kept in memory and retried: ${(e as Error).message}`,
          );
        this.failing = true;
        return;
      }
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
