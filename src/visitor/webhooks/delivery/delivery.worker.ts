import { Processor } from '@nestjs/bullmq';
import { ResilientWorkerHost } from '../../../common/queue/resilient-worker-host';
import { Sweeper } from '../../../common/periodic-task';
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

/** Deliveries one sweep re-enqueues at most. */
const SWEEP_BATCH = 1000;

/**
 * Re-enqueues due deliveries from PostgreSQL every WEBHOOK_SWEEP_MS, so nothing is lost when Redis loses its
 * jobs (flush, restart without persistence) or a worker dies mid-delivery (its claim expires). First it resumes
 * deliveries held while an organisation's plan lacked webhooks, once the plan is back.
 *
 * While a backlog of at least one batch waits in Redis, the workers have work queued already and the oldest due
 * deliveries are, almost always, exactly the jobs at its head: re-adding them is a no-op that still costs a row
 * lock each and a Redis script each, every sweep. Then only expired claims (dead workers) are re-enqueued; the
 * rest waits for the backlog to fall below a batch (delayed, never lost). Resumed deliveries, whose jobs ended
 * when they were held, are always enqueued.
 */
@Injectable()
export class DeliverySweeper extends Sweeper {
  protected readonly logger = new Logger('WebhookSweeper');

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
    const resumed = await this.repo.resumeHeld(now, SWEEP_BATCH);
    const backlog = (await this.queue.waiting()) >= SWEEP_BATCH;
    const due = [
      ...resumed,
      ...(await this.repo.dueDeliveries(now, this.config.webhooks.sweepMs, SWEEP_BATCH, backlog)),
    ];
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
