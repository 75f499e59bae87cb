import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
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
export class PassQueue {
  private readonly logger = new Logger('PassQueue');

  constructor(
    @InjectQueue(PASS_QUEUE) private readonly queue: Queue<PassJob>,
    private readonly redis: RedisService,
  ) {
    this.queue.on('error', () => undefined);
  }

  async enqueue(passIds: string[]): Promise<void> {
    if (passIds.length === 0) return;
    if (!this.redis.isReady()) {
      this.logger.warn('Redis is not connected; the pass sweeper will send pending passes');
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
