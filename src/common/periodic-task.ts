import { Inject, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../config/config';
import { RedisService } from '../redis/redis.service';
import { PeriodClaim } from './period-claim';

/**
 * A job run on a timer in worker processes (RUN_WORKER=true; elsewhere nothing is scheduled): retention purges
 * (hourly), sweepers that re-enqueue what Redis lost, the no-show job. Time is cut into periods of `intervalMs`
 * from the epoch; at the start of each period every worker asks Redis for it and one process of the fleet runs
 * it (see PeriodClaim: when Redis is unreachable each worker runs it itself). Purges do not run under
 * NODE_ENV=test (tests call `run()` directly); sweepers do. Runs never overlap in a process, nor in the fleet while
 * Redis is reachable; a failure is logged and retried at the next period.
 */
export abstract class PeriodicTask implements OnApplicationBootstrap, OnModuleDestroy {
  protected abstract readonly logger: Logger;
  /** What `work()` counts, for the log line (`12 <what>`); null logs nothing. */
  protected abstract readonly what: string | null;
  protected readonly intervalMs: number = 3_600_000;
  protected readonly runsInTests: boolean = false;
  // A property, so subclasses keep their constructors (config only).
  @Inject(RedisService) private readonly redis: RedisService;
  private claim: PeriodClaim | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private ticking = false;
  private stopped = false;
  /** The round under way in this process (timer or direct), which shutdown waits for. */
  private current: Promise<number> | null = null;

  protected constructor(protected readonly config: Config) {}

  /** Does one round (`period`: the period it was claimed for, null when called directly); returns how many
   * items it handled. */
  protected abstract work(period: number | null): Promise<number>;

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    if (this.config.nodeEnv === 'test' && !this.runsInTests) return;
    const key = `${this.config.redisKeyPrefix}:periodic:${this.constructor.name}`;
    this.claim = new PeriodClaim(this.redis, key, this.intervalMs, this.logger);
    this.schedule(Math.floor(Date.now() / this.intervalMs) + 1);
  }

  /**
   * Stops scheduling and waits for a round under way: the database and Redis close after every module is
   * destroyed (onApplicationShutdown), so a round never finds them gone (a shutdown used to log "Cannot use a
   * pool after calling end on the pool").
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.claim = null;
    await this.current;
  }

  /** Runs one round now in this process (unless one is running here), without claiming a period. */
  run(period: number | null = null): Promise<number> {
    if (this.running) return Promise.resolve(0);
    this.running = true;
    const round = (async () => {
      try {
        const n = await this.work(period);
        if (n > 0 && this.what) this.logger.log(`${n} ${this.what}`);
        return n;
      } catch (e) {
        this.logger.warn(`${this.constructor.name} failed: ${(e as Error).message}`);
        return 0;
      } finally {
        this.running = false;
        this.current = null;
      }
    })();
    this.current = round;
    return round;
  }

  private schedule(period: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(period), Math.max(0, period * this.intervalMs - Date.now()));
    this.timer.unref();
  }

  private async tick(due: number): Promise<void> {
    // A late timer (a busy event loop) claims the period it wakes up in, never an older one.
    const period = Math.max(due, Math.floor(Date.now() / this.intervalMs));
    this.schedule(period + 1);
    // A round (or a claim) still under way here skips the period; elsewhere the round's lease does the same.
    if (this.stopped || this.ticking || this.running || !this.claim) return;
    this.ticking = true;
    try {
      await this.claim.runIfClaimed(period, async () => (this.claim ? this.run(period) : 0));
    } finally {
      this.ticking = false;
    }
  }
}

/**
 * A sweeper: re-enqueues from PostgreSQL the work whose job Redis lost, every WEBHOOK_SWEEP_MS, in tests too
 * (tests kill Redis and expect the work to arrive). It logs nothing per round.
 */
export abstract class Sweeper extends PeriodicTask {
  protected readonly what = null;
  protected override readonly intervalMs = this.config.webhooks.sweepMs;
  protected override readonly runsInTests = true;
}
