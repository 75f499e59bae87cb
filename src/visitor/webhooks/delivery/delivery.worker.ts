import { Processor } from '@nestjs/bullmq';
import { ResilientWorkerHost } from '../../../common/queue/resilient-worker-host';
import { PeriodicTask } from '../../../common/periodic-task';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { Config } from '../../../config/config';
import { InjectConfig } from '../../../config/config.module';
import { Clock } from '../../../common/clock';
import { RedisService } from '../../../redis/redis.service';
import { WebhooksRepository } from '../webhooks.repository';
import { DeliveryService } from './delivery.service';
import { DeliveryJob, WEBHOOK_QUEUE, WebhookQueue } from './webhook-queue';

/** Runs delivery jobs (worker processes only). */
@Processor(WEBHOOK_QUEUE)
export class DeliveryProcessor extends ResilientWorkerHost implements OnApplicationBootstrap {
  protected readonly logger = new Logger('WebhookWorker');
  protected readonly waiting = 'deliveries';

  constructor(
    private readonly delivery: DeliveryService,
    @InjectConfig() private readonly config: Config,
    redis: RedisService,
  ) {
    super(redis);
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
  }

  async process(job: Job<DeliveryJob>): Promise<string> {
    return this.delivery.attempt(job.data.deliveryId);
  }
}

/**
 * Re-enqueues due deliveries from PostgreSQL every WEBHOOK_SWEEP_MS, so nothing is lost when Redis loses its
 * jobs (flush, restart without persistence) or a worker dies mid-delivery (its claim expires).
 */
@Injectable()
export class DeliverySweeper extends PeriodicTask {
  protected readonly logger = new Logger('WebhookSweeper');
  protected readonly what = null;
  protected override readonly intervalMs = this.config.webhooks.sweepMs;
  protected override readonly runsInTests = true;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected async work(): Promise<number> {
    const now = this.clock.now();
    const due = await this.repo.dueDeliveries(now, this.config.webhooks.sweepMs, 1000);
    await this.queue.enqueue(
      due.map((d) => ({
        deliveryId: d.id,
        attempt: d.attempt_count + 1,
        delayMs: new Date(d.next_attempt_at).getTime() - now.getTime(),
        retryOf: d.locked_until ? new Date(d.locked_until).getTime() : undefined,
      })),
    );
    return due.length;
  }
}
