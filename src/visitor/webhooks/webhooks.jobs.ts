import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { JobQueue, jobKind } from '../../common/queue/job-queue';
import { JobProcessor } from '../../common/queue/job-worker';
import { ResilientWorkerHost } from '../../common/queue/resilient-worker-host';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';
import { DeliveryService } from './delivery/delivery.service';
import { WebhooksRepository } from './webhooks.repository';

/** One attempt of a delivery: the job carries only ids, the delivery's truth is its row. */
export interface DeliveryJob {
  deliveryId: string;
  /** The attempt's number (1 for the first). */
  attempt: number;
  /** The expired claim (epoch ms) a re-enqueue replaces, which gives the job an id of its own. */
  retryOf?: number;
}

declare module '../../common/queue/job-queue' {
  interface Jobs {
    'webhooks.deliver': DeliveryJob;
  }
}

/**
 * Delivery attempts, one id per attempt (`<delivery>-<attempt>[-r<claim>]`), so the sweeper may re-enqueue
 * freely. Redis is an accelerator: when it is down nothing is added and the sweeper catches up from PostgreSQL.
 */
export const WEBHOOKS_DELIVER = jobKind({
  name: 'webhooks.deliver',
  queue: 'webhook-delivery',
  id: (d) => `${d.deliveryId}-${d.attempt}${d.retryOf ? `-r${d.retryOf}` : ''}`,
  waiting: 'deliveries',
});

/** Runs delivery attempts (worker processes only), WEBHOOK_CONCURRENCY at a time. */
@JobProcessor(WEBHOOKS_DELIVER)
export class DeliveryProcessor
  extends ResilientWorkerHost<'webhooks.deliver'>
  implements OnApplicationBootstrap
{
  constructor(
    private readonly delivery: DeliveryService,
    @InjectConfig() private readonly config: Config,
    redis: RedisService,
  ) {
    super(redis, WEBHOOKS_DELIVER);
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

/** Webhooks' periodic work. */
@Injectable()
export class WebhooksJobs {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

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
  @Periodic({ name: 'webhooks.sweep', every: 'sweep', runsInTests: true, formerly: 'DeliverySweeper' })
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const resumed = await this.repo.resumeHeld(now, SWEEP_BATCH);
    const backlog = (await this.jobs.waiting('webhooks.deliver')) >= SWEEP_BATCH;
    const due = [
      ...resumed,
      ...(await this.repo.dueDeliveries(now, this.config.webhooks.sweepMs, SWEEP_BATCH, backlog)),
    ];
    await this.jobs.add(
      'webhooks.deliver',
      due.map((d) => ({
        data: {
          deliveryId: d.id,
          attempt: d.attempt_count + 1,
          retryOf: d.locked_until ? new Date(d.locked_until).getTime() : undefined,
        },
        delayMs: new Date(d.next_attempt_at).getTime() - now.getTime(),
      })),
    );
    return due.length;
  }
}
