import { Processor } from '@nestjs/bullmq';
import { ResilientWorkerHost } from '../../common/queue/resilient-worker-host';
import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { PeriodicTask, Sweeper } from '../../common/periodic-task';
import { RedisService } from '../../redis/redis.service';
import { PASS_QUEUE, PassJob, PassQueue } from './pass.queue';
import { PassOutcome, PassSender } from './pass.sender';
import { PassesRepository } from './passes.repository';
import { VisitsService } from './visits.service';

/** Sends queued passes (worker processes only). */
@Processor(PASS_QUEUE)
export class PassProcessor extends ResilientWorkerHost {
  protected readonly logger = new Logger('PassWorker');
  protected readonly waiting = 'passes';

  constructor(
    private readonly sender: PassSender,
    redis: RedisService,
  ) {
    super(redis);
  }

  process(job: Job<PassJob>): Promise<PassOutcome> {
    return this.sender.send(job.data.passId);
  }
}

/** Re-enqueues passes still pending 10 s after they were issued (their job was lost with Redis). */
@Injectable()
export class PassSweeper extends Sweeper {
  protected readonly logger = new Logger('PassSweeper');

  constructor(
    private readonly repo: PassesRepository,
    private readonly queue: PassQueue,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected async work(): Promise<number> {
    const ids = await this.repo.stalePendingPasses(new Date(this.clock.now().getTime() - 10_000), 500);
    await this.queue.enqueue(ids);
    return ids.length;
  }
}

/** Every minute: `expected` visits whose window ended VISIT_NO_SHOW_GRACE_MINUTES ago become `no_show`. */
@Injectable()
export class NoShowJob extends PeriodicTask {
  protected readonly logger = new Logger('NoShowJob');
  protected readonly what = 'visits marked as no-shows';
  protected override readonly intervalMs = 60_000;

  constructor(
    private readonly visits: VisitsService,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected work(): Promise<number> {
    return this.visits.markNoShows(this.config.visits.noShowGraceMinutes);
  }
}
