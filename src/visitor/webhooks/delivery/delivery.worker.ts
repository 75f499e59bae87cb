import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
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
export class DeliveryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  private readonly logger = new Logger('WebhookWorker');
  private warned = false;

  constructor(
    private readonly delivery: DeliveryService,
    @InjectConfig() private readonly config: Config,
    private readonly redis: RedisService,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.webhooks.concurrency;
  }

  /**
   * Without Redis a graceful worker close waits forever for its blocking connection. Close it forcibly then:
   * a delivery in flight keeps its claim in PostgreSQL and the sweeper retries it once the claim expires.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.redis.isReady()) await this.worker.close(true);
  }

  async process(job: Job<DeliveryJob>): Promise<string> {
    return this.delivery.attempt(job.data.deliveryId);
  }

  @OnWorkerEvent('error')
  onError(e: Error): void {
    if (!this.warned)
      this.logger.warn(`webhook worker cannot reach Redis (${e.message}); deliveries wait in PostgreSQL`);
    this.warned = true;
  }

  @OnWorkerEvent('ready')
  onReady(): void {
    this.warned = false;
  }
}

/**
 * Re-enqueues due deliveries from PostgreSQL every WEBHOOK_SWEEP_MS, so nothing is lost when Redis loses its
 * jobs (flush, restart without persistence) or a worker dies mid-delivery (its claim expires).
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WebhookSweeper');
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.webhooks.sweepMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
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
    } catch (e) {
      this.logger.warn(`sweep failed: ${(e as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }
}
