import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { RedisService } from '../../redis/redis.service';

/**
 * A BullMQ processor for work whose truth lives in PostgreSQL (a sweeper re-enqueues what Redis loses): it reports
 * its lost connection once (a warning only if the shared connection is up, see RedisService.warnUnlessDown), and
 * closes forcibly on shutdown without Redis, where a graceful close waits forever for its blocking connection (the
 * job in flight keeps its PostgreSQL claim and is retried).
 */
export abstract class ResilientWorkerHost extends WorkerHost implements BeforeApplicationShutdown {
  protected abstract readonly logger: Logger;
  /** What waits in PostgreSQL meanwhile, for the warning (e.g. "deliveries"). */
  protected abstract readonly waiting: string;
  private warned = false;

  protected constructor(protected readonly redis: RedisService) {
    super();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.redis.isReady()) await this.worker.close(true);
  }

  @OnWorkerEvent('error')
  onError(e: Error): void {
    if (!this.warned)
      this.redis.warnUnlessDown(
        this.logger,
        `worker cannot reach Redis (${e.message}); ${this.waiting} wait in PostgreSQL`,
      );
    this.warned = true;
  }

  @OnWorkerEvent('ready')
  onReady(): void {
    this.warned = false;
  }
}
