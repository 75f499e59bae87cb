import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { RedisService } from '../../redis/redis.service';
import type { JobKind, JobName, Jobs } from './job-queue';

/**
 * The handler of one job name (declared with `@JobProcessor(kind)`), for work whose truth lives in PostgreSQL (a
 * sweeper re-enqueues what Redis loses): it reports its lost connection once (a warning only if the shared
 * connection is up, see RedisService.warnUnlessDown), and closes forcibly on shutdown without Redis, where a
 * graceful close waits forever for its blocking connection (the job in flight keeps its PostgreSQL claim and is
 * retried).
 */
export abstract class ResilientWorkerHost<K extends JobName>
  extends WorkerHost
  implements BeforeApplicationShutdown
{
  protected readonly logger: Logger;
  private warned = false;

  protected constructor(
    protected readonly redis: RedisService,
    private readonly kind: JobKind<K>,
  ) {
    super();
    this.logger = new Logger(kind.name);
  }

  abstract override process(job: Job<Jobs[K]>): Promise<unknown>;

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.redis.isReady()) await this.worker.close(true);
  }

  @OnWorkerEvent('error')
  onError(e: Error): void {
    if (!this.warned)
      this.redis.warnUnlessDown(
        this.logger,
        `worker cannot reach Redis (${e.message}); ${this.kind.waiting} wait in PostgreSQL`,
      );
    this.warned = true;
  }

  @OnWorkerEvent('ready')
  onReady(): void {
    this.warned = false;
  }
}
