import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { JobQueue, jobKind } from '../../common/queue/job-queue';
import { JobProcessor } from '../../common/queue/job-worker';
import { ResilientWorkerHost } from '../../common/queue/resilient-worker-host';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';
import { PassOutcome, PassSender } from './pass.sender';
import { PassesRepository } from './passes.repository';
import { VisitsService } from './visits.service';

/** Sending one pass. */
export interface PassJob {
  passId: string;
}

declare module '../../common/queue/job-queue' {
  interface Jobs {
    'visits.send-pass': PassJob;
  }
}

/**
 * Pass sends, added after commit. The job id is the pass id, so adding twice is harmless; when Redis is down
 * nothing is added and the pass sweeper picks the pending pass up from PostgreSQL.
 */
export const VISITS_SEND_PASS = jobKind({
  name: 'visits.send-pass',
  queue: 'visit-pass',
  id: (p) => p.passId,
  waiting: 'passes',
});

/** Sends queued passes (worker processes only). */
@JobProcessor(VISITS_SEND_PASS)
export class PassProcessor extends ResilientWorkerHost<'visits.send-pass'> {
  constructor(
    private readonly sender: PassSender,
    redis: RedisService,
  ) {
    super(redis, VISITS_SEND_PASS);
  }

  process(job: Job<PassJob>): Promise<PassOutcome> {
    return this.sender.send(job.data.passId);
  }
}

/** Visits' periodic work. */
@Injectable()
export class VisitsJobs {
  constructor(
    private readonly repo: PassesRepository,
    private readonly visits: VisitsService,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  /** Re-enqueues passes still pending 10 s after they were issued (their job was lost with Redis). */
  @Periodic({ name: 'visits.sweep-passes', every: 'sweep', runsInTests: true, formerly: 'PassSweeper' })
  async sweepPasses(): Promise<number> {
    const ids = await this.repo.stalePendingPasses(new Date(this.clock.now().getTime() - 10_000), 500);
    await this.jobs.add(
      'visits.send-pass',
      ids.map((passId) => ({ data: { passId } })),
    );
    return ids.length;
  }

  /** Every minute: `expected` visits whose window ended VISIT_NO_SHOW_GRACE_MINUTES ago become `no_show`. */
  @Periodic({
    name: 'visits.mark-no-shows',
    every: 'minute',
    what: 'visits marked as no-shows',
    formerly: 'NoShowJob',
  })
  markNoShows(): Promise<number> {
    return this.visits.markNoShows(this.config.visits.noShowGraceMinutes);
  }
}
