import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { hash } from 'node:crypto';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { JobQueue, jobKind } from '../../common/queue/job-queue';
import { JobProcessor } from '../../common/queue/job-worker';
import { ResilientWorkerHost } from '../../common/queue/resilient-worker-host';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { RedisService } from '../../redis/redis.service';
import { PassOutcome, PassSender } from './pass.sender';
import { PassJob, passIdsOf, passJob, SinglePassJob } from './pass-job';
import { PassesRepository } from './passes.repository';
import { VisitsService } from './visits.service';

/** A job's passes sent at once, at most: the passes of a busy turn are not left to one send at a time. */
const PASS_SENDS_AT_ONCE = 4;

declare module '../../common/queue/job-queue' {
  interface Jobs {
    'visits.send-pass': PassJob;
  }
}

/**
 * Pass sends, added after commit: the passes a turn of the event loop issued go as one job. The id of a job of one
 * pass is the pass id, and of several a digest of their ids, so adding the same again is harmless; when Redis is
 * down nothing is added and the pass sweeper picks the pending passes up from PostgreSQL.
 */
export const VISITS_SEND_PASS = jobKind({
  name: 'visits.send-pass',
  queue: 'visit-pass',
  id: (p) =>
    p.passIds.length === 1 ? p.passIds[0] : `passes_${hash('sha1', p.passIds.join(' '), 'base64url')}`,
  waiting: 'passes',
  merge: (jobs) => passJob(jobs.flatMap((j) => j.passIds)),
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

  process(job: Job<PassJob | SinglePassJob>): Promise<PassOutcome[]> {
    return sendPasses(this.sender, passIdsOf(job.data));
  }
}

/**
 * Sends the passes, up to PASS_SENDS_AT_ONCE at a time, and answers their outcomes in order. One that fails leaves
 * the others to be sent; then the first failure is thrown (the job fails), and the failed pass stays pending for
 * the sweeper.
 */
export async function sendPasses(
  sender: Pick<PassSender, 'send'>,
  ids: readonly string[],
): Promise<PassOutcome[]> {
  const outcomes = new Array<PassOutcome>(ids.length);
  let failed: { at: number; error: unknown } | undefined;
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const at = next++;
      try {
        outcomes[at] = await sender.send(ids[at]);
      } catch (error) {
        if (!failed || at < failed.at) failed = { at, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PASS_SENDS_AT_ONCE, ids.length) }, lane));
  if (failed) throw failed.error;
  return outcomes;
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
    // A job per pass, named after it (a pass whose own job still waits is not added twice; one in a merged job may
    // so be in two, and the first to claim it sends it while the other skips it).
    await this.jobs.add(
      'visits.send-pass',
      ids.map((passId) => ({ data: passJob([passId]) })),
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
