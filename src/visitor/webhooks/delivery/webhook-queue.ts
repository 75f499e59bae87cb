import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { RedisService } from '../../../redis/redis.service';

export const WEBHOOK_QUEUE = 'webhook-delivery';
export interface DeliveryJob {
  deliveryId: string;
}

/**
 * Enqueues delivery attempts. Jobs carry only the delivery id and have a deterministic id per attempt
 * (`<delivery>-<attempt>`), so the sweeper may re-enqueue freely. Redis is an accelerator: when it is down
 * nothing is enqueued and the sweeper catches up from PostgreSQL later.
 */
@Injectable()
export class WebhookQueue {
  private readonly logger = new Logger('WebhookQueue');
  private warned = false;

  constructor(
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliveryJob>,
    private readonly redis: RedisService,
  ) {
    this.queue.on('error', (e) => this.warnOnce(e.message));
  }

  private warnOnce(message: string): void {
    if (!this.warned)
      this.redis.warnUnlessDown(
        this.logger,
        `webhook queue unavailable (${message}); the sweeper will enqueue from PostgreSQL`,
      );
    this.warned = true;
  }

  /** Jobs waiting to run (0 when Redis is unreachable: then nothing can be known to wait there). */
  async waiting(): Promise<number> {
    if (!this.redis.isReady()) return 0;
    return this.queue.getWaitingCount().catch(() => 0);
  }

  /** `retryOf`: the expired claim (epoch ms) a re-enqueue replaces, which gives the job an id of its own. */
  async enqueue(
    items: { deliveryId: string; attempt: number; delayMs?: number; retryOf?: number }[],
  ): Promise<void> {
    if (items.length === 0) return;
    if (!this.redis.isReady()) return this.warnOnce('Redis is not connected');
    await this.queue.addBulk(
      items.map((i) => ({
        name: 'deliver',
        data: { deliveryId: i.deliveryId },
        opts: {
          jobId: `${i.deliveryId}-${i.attempt}${i.retryOf ? `-r${i.retryOf}` : ''}`,
          delay: Math.max(0, i.delayMs ?? 0),
          removeOnComplete: true,
          removeOnFail: true,
          attempts: 1,
        },
      })),
    );
    this.warned = false;
  }
}
