import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { RedisService } from '../../redis/redis.service';

/**
 * Every job handed from a request (or a sweeper) to a worker, by name (`<domain>.<verb>`): its payload. The map
 * starts empty here, below the domains; each domain adds its jobs in its `<domain>.jobs.ts` by declaration
 * merging (`declare module '…/common/queue/job-queue' { interface Jobs { 'visits.send-pass': PassJob } }`), with
 * the `JobKind` that says where they go. `JobQueue.add` and `JobProcessor` are checked against it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Jobs {}
export type JobName = keyof Jobs;

/** Where jobs of one name go and how they are told apart. */
export interface JobKind<K extends JobName = JobName> {
  readonly name: K;
  /**
   * The BullMQ queue, one per kind (each has its worker and its concurrency). The names predate the job map and
   * are kept, so jobs waiting in Redis across a deploy are still run.
   */
  readonly queue: string;
  /**
   * The job's id from its payload: adding the same job twice adds it once (sweepers re-add freely). Never an
   * integer-looking string: BullMQ refuses those (`Custom Id cannot be integers`); UUIDs and prefixed ids are safe.
   */
  id(data: Jobs[K]): string;
  /** Where the work waits while Redis is down, for the warnings ("deliveries wait in PostgreSQL"). */
  readonly waiting: string;
  /**
   * One job standing for several of this kind (their work in one payload): the jobs `addSoon` gathers in a turn of
   * the event loop then go as one job, one script call, instead of a bulk add (an ioredis pipeline that first
   * defines every one of BullMQ's scripts on it, about a tenth of a visit create's CPU).
   */
  merge?(jobs: readonly Jobs[K][]): Jobs[K];
}

export const jobKind = <K extends JobName>(kind: JobKind<K>): JobKind<K> => kind;

/** A job kind as this process registered it (`QueueModule.forJobs`), with its queue. */
interface Registered {
  kind: JobKind;
  queue: Queue;
  logger: Logger;
  warned: boolean;
}

/**
 * The one producer of jobs: `add(name, jobs)` puts them on the kind's BullMQ queue with the kind's ids. Redis is an
 * accelerator: every job's truth is a PostgreSQL row that a sweeper re-enqueues, so when Redis is down nothing is
 * added (one warning, unless the shared connection reported the outage already) and the sweeper catches up.
 */
@Injectable()
export class JobQueue implements OnModuleDestroy {
  private readonly kinds = new Map<string, Registered>();
  /** Jobs waiting for this event-loop turn's bulk add, by name, and the adds under way. */
  private readonly soon = new Map<string, unknown[]>();
  private readonly flushes = new Set<Promise<void>>();
  private readonly logger = new Logger('JobQueue');

  constructor(private readonly redis: RedisService) {}

  /** Registers a kind with its queue (called by the providers `QueueModule.forJobs` declares). */
  register(kind: JobKind, queue: Queue): JobKind {
    const r: Registered = { kind, queue, logger: new Logger(kind.name), warned: false };
    this.kinds.set(kind.name, r);
    queue.on('error', (e: Error) => this.warnOnce(r, e.message));
    return kind;
  }

  private registered(name: JobName): Registered {
    const r = this.kinds.get(name);
    if (!r) throw new Error(`job ${name} is not registered in this process (QueueModule.forJobs)`);
    return r;
  }

  private warnOnce(r: Registered, message: string): void {
    if (!r.warned)
      this.redis.warnUnlessDown(
        r.logger,
        `queue unavailable (${message}); ${r.kind.waiting} wait in PostgreSQL for the sweeper`,
      );
    r.warned = true;
  }

  /** Adds jobs in one bulk add; `delayMs`: not before then. */
  async add<K extends JobName>(name: K, jobs: readonly { data: Jobs[K]; delayMs?: number }[]): Promise<void> {
    if (jobs.length === 0) return;
    const r = this.registered(name);
    if (!this.redis.isReady()) return this.warnOnce(r, 'Redis is not connected');
    const kind = r.kind as unknown as JobKind<K>;
    const opts = (j: { data: Jobs[K]; delayMs?: number }) => ({
      jobId: kind.id(j.data),
      delay: Math.max(0, j.delayMs ?? 0),
      removeOnComplete: true,
      removeOnFail: true,
      attempts: 1,
    });
    // One job (the usual hand-off of a request) goes as one script call: BullMQ's bulk add builds an ioredis
    // pipeline, which defines every one of BullMQ's Lua scripts on it first: about a tenth of a visit create's CPU.
    if (jobs.length === 1) await r.queue.add(name, jobs[0].data, opts(jobs[0]));
    else await r.queue.addBulk(jobs.map((j) => ({ name, data: j.data, opts: opts(j) })));
    r.warned = false;
  }

  /**
   * Adds the job with the others of this turn of the event loop, in one bulk add (or as one job, when the kind
   * merges its jobs), without the caller waiting for Redis. A failure is logged: the row stays pending and the
   * sweeper adds the job again.
   */
  addSoon<K extends JobName>(name: K, data: Jobs[K]): void {
    const batch = this.soon.get(name);
    if (batch) {
      batch.push(data);
      return;
    }
    this.soon.set(name, [data]);
    setImmediate(() => {
      const items = (this.soon.get(name) ?? []) as Jobs[K][];
      this.soon.delete(name);
      const r = this.kinds.get(name);
      const kind = r?.kind as JobKind<K> | undefined;
      // Merged and added in the promise, so a failure of either (an unregistered kind too) is logged, not thrown.
      const flush = Promise.resolve()
        .then(() =>
          this.add(
            name,
            (kind?.merge && items.length > 1 ? [kind.merge(items)] : items).map((d) => ({ data: d })),
          ),
        )
        .catch((e: Error) =>
          (r?.logger ?? this.logger).warn(
            `could not add ${items.length} ${name} job(s), the sweeper will: ${e.message}`,
          ),
        );
      this.flushes.add(flush);
      void flush.finally(() => this.flushes.delete(flush));
    });
  }

  /**
   * Removes the jobs of `name` that wait to run (not the delayed or running ones), in one call: for wake-ups, where
   * the run that follows covers every one removed.
   */
  async dropWaiting(name: JobName): Promise<void> {
    if (!this.redis.isReady()) return;
    await this.registered(name).queue.drain(false);
  }

  /** Lets the last batches reach Redis before the queues close (onApplicationShutdown). */
  async onModuleDestroy(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(this.flushes);
  }
}
