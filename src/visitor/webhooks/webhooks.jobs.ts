import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { JobQueue, jobKind } from '../../common/queue/job-queue';
import { JobProcessor } from '../../common/queue/job-worker';
import { ResilientWorkerHost } from '../../common/queue/resilient-worker-host';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';
import { DeliveryPump } from './delivery/delivery-pump';
import { DeliveryService } from './delivery/delivery.service';
import { WebhooksRepository } from './webhooks.repository';

/**
 * A wake-up: deliveries fell due (the one named, and any others), so a worker claims what is due. The job carries
 * only ids; the deliveries' truth is their rows.
 */
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
 * Wake-ups, one id per attempt of the delivery they name (`<delivery>-<attempt>[-r<claim>]`), so the sweeper may
 * re-enqueue freely. Redis is an accelerator: when it is down nothing is added, and each worker's loop still claims
 * what is due every WEBHOOK_SWEEP_MS.
 */
export const WEBHOOKS_DELIVER = jobKind({
  name: 'webhooks.deliver',
  queue: 'webhook-delivery',
  id: (d) => `${d.deliveryId}-${d.attempt}${d.retryOf ? `-r${d.retryOf}` : ''}`,
  waiting: 'deliveries',
});

/**
 * Runs this worker's delivery loop (DeliveryPump: WEBHOOK_CONCURRENCY attempts in flight, claimed and recorded in
 * batches); each job wakes it.
 */
@JobProcessor(WEBHOOKS_DELIVER)
export class DeliveryProcessor
  extends ResilientWorkerHost<'webhooks.deliver'>
  implements OnApplicationBootstrap, OnModuleDestroy
{
  private readonly pump: DeliveryPump;

  constructor(
    private readonly delivery: DeliveryService,
    @InjectConfig() private readonly config: Config,
    redis: RedisService,
  ) {
    super(redis, WEBHOOKS_DELIVER);
    this.pump = new DeliveryPump(delivery, config.webhooks.concurrency, this.logger);
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
    this.pump.start(this.config.webhooks.sweepMs);
  }

  /** Lets the attempts under way end and be recorded (their claims would otherwise hold them until they lapse). */
  onModuleDestroy(): Promise<void> {
    return this.pump.stop();
  }

  /**
   * Wakes the loop. A backlog of wake-ups (events recorded while no worker ran) is dropped first, in one call, at
   * most every DROP_EVERY_MS: each was added after its deliveries were committed, so the claim that follows the drop
   * sees them all.
   */
  async process(): Promise<void> {
    if (!this.dropping && Date.now() - this.droppedAt >= DROP_EVERY_MS) {
      this.droppedAt = Date.now();
      this.dropping = this.delivery
        .dropWaitingWakeUps()
        .catch(() => undefined)
        .finally(() => (this.dropping = null));
    }
    await this.dropping;
    this.pump.wake();
  }

  private dropping: Promise<void> | null = null;
  private droppedAt = 0;
}

/** How often a worker drops the wake-ups waiting in Redis at most. */
const DROP_EVERY_MS = 100;

/** Deliveries one sweep resumes at most, and wake-ups it adds at most. */
const SWEEP_BATCH = 1000;
const SWEEP_WAKES = 50;

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
   * Every WEBHOOK_SWEEP_MS: resumes deliveries held while an organisation's plan lacked webhooks, once the plan is
   * back, and adds wake-ups for them and for the oldest due (or soon due) deliveries from PostgreSQL, so a worker
   * wakes when Redis lost their jobs (flush, restart without persistence) or a worker died mid-delivery (its claim
   * expired). A woken worker claims everything due, so a few wake-ups cover any backlog; one already queued under
   * the same id is not added twice.
   */
  @Periodic({ name: 'webhooks.sweep', every: 'sweep', runsInTests: true, formerly: 'DeliverySweeper' })
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const resumed = await this.repo.resumeHeld(now, SWEEP_BATCH);
    const due = [
      ...resumed.slice(0, 1),
      ...(await this.repo.dueDeliveries(now, this.config.webhooks.sweepMs, SWEEP_WAKES)),
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
    return resumed.length + due.length;
  }
}
