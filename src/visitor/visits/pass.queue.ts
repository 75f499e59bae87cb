import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { RedisService } from '../../redis/redis.service';

export const PASS_QUEUE = 'visit-pass';
export interface PassJob {
  passId: string;
}

/**
 * Enqueues pass sends after commit. The job id is the pass id, so enqueueing twice is harmless; when Redis is
 * down nothing is enqueued and the pass sweeper picks the pending pass up from PostgreSQL.
 */
@Injectable()
export class PassQueue implements OnModuleDestroy {
  private readonly logger = new Logger('PassQueue');
  /** Pass ids waiting for the next batch, and the batch being added. */
  private soon: string[] = [];
  private flush: Promise<void> | null = null;

  constructor(
    @InjectQueue(PASS_QUEUE) private readonly queue: Queue<PassJob>,
    private readonly redis: RedisService,
  ) {
    this.queue.on('error', () => undefined);
  }

  /**
   * Enqueues the pass with the others of this turn of the event loop, in one bulk add, without the caller
   * waiting for Redis. A failure is logged: the pass stays pending and the sweeper enqueues it again.
   */
  enqueueSoon(passId: string): void {
    this.soon.push(passId);
    if (this.soon.length > 1) return;
    setImmediate(() => {
      const ids = this.soon;
      this.soon = [];
      this.flush = this.enqueue(ids).catch((e: Error) =>
        this.logger.warn(`could not enqueue ${ids.length} pass(es), the sweeper will: ${e.message}`),
      );
    });
  }

  /** Lets the last batch reach Redis before the queue closes. */
  async onModuleDestroy(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await this.flush;
  }

  async enqueue(passIds: string[]): Promise<void> {
    if (passIds.length === 0) return;
    if (!this.redis.isReady()) {
      this.logger.debug('Redis is not connected; the pass sweeper will send pending passes');
      return;
    }
    await this.queue.addBulk(
      passIds.map((passId) => ({
        name: 'send',
        data: { passId },
        opts: { jobId: passId, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      })),
    );
  }
}
