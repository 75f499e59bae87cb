import {
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
  OnModuleInit,
  SetMetadata,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { RedisService } from '../redis/redis.service';
import { PeriodClaim } from './period-claim';

export interface PeriodicOptions {
  /**
   * `<domain>.<verb>`, the name the task has everywhere: its log lines' context, its Redis claim
   * (`<prefix>:periodic:<name>`, see PeriodClaim) and `PeriodicScheduler.run(name)`.
   */
  name: string;
  /** The period: a minute, an hour, or WEBHOOK_SWEEP_MS for the sweepers; or `everyMs`. */
  every?: 'minute' | 'hour' | 'sweep';
  everyMs?: number;
  /** Scheduled under NODE_ENV=test too (sweepers: tests kill Redis and expect the work to arrive); else tests
   * call `run(name)`. */
  runsInTests?: boolean;
  /** What the method's count counts, for the log line (`12 <what>`); absent logs nothing. */
  what?: string | ((config: Config) => string);
  /**
   * The key the task was claimed under before it had this name (its class name). It is claimed with the new one
   * (one script, every key or none), so a process of the previous version, which claims only the old key, and
   * one of this version never both run a period. Drop it once no process of the previous version runs.
   */
  formerly?: string;
}

const PERIODIC = 'gatehouse:periodic';
const EVERY_MS = { minute: 60_000, hour: 3_600_000 } as const;

/**
 * Declares a method (`(period: number | null) => Promise<number>`, returning how many items it handled) as a
 * periodic task; `PeriodicScheduler` finds it at start-up.
 */
export const Periodic = (options: PeriodicOptions): MethodDecorator => SetMetadata(PERIODIC, options);

type Work = (period: number | null) => Promise<number>;

/**
 * One declared task and its state in this process. Time is cut into periods of `intervalMs` from the epoch; at
 * the start of each period every worker asks Redis for it and one process of the fleet runs it (PeriodClaim:
 * when Redis is unreachable each worker runs it itself). Runs never overlap in a process, nor in the fleet while
 * Redis is reachable; a failure is logged and retried at the next period.
 */
class Task {
  readonly logger: Logger;
  private claim: PeriodClaim | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private ticking = false;
  private stopped = false;
  /** The round under way in this process (timer or direct), which shutdown waits for. */
  private current: Promise<number> | null = null;

  constructor(
    readonly options: PeriodicOptions,
    readonly intervalMs: number,
    private readonly what: string | null,
    private readonly work: Work,
  ) {
    this.logger = new Logger(options.name);
  }

  start(redis: RedisService, prefix: string): void {
    const keys = [this.options.name, ...(this.options.formerly ? [this.options.formerly] : [])];
    this.claim = new PeriodClaim(
      redis,
      keys.map((k) => `${prefix}:periodic:${k}`),
      this.intervalMs,
      this.logger,
    );
    this.schedule(Math.floor(Date.now() / this.intervalMs) + 1);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.claim = null;
    await this.current;
  }

  run(period: number | null): Promise<number> {
    if (this.running) return Promise.resolve(0);
    this.running = true;
    const round = (async () => {
      try {
        const n = await this.work(period);
        if (n > 0 && this.what) this.logger.log(`${n} ${this.what}`);
        return n;
      } catch (e) {
        this.logger.warn(`${this.options.name} failed: ${(e as Error).message}`);
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
 * Runs every `@Periodic` method of the application's providers on its timer, in worker processes only
 * (RUN_WORKER=true; elsewhere nothing is scheduled, and `run(name)` still runs a round on demand). Tasks without
 * `runsInTests` (the purges) are not scheduled under NODE_ENV=test; sweepers are. Two tasks with one name, or a
 * declaration without a period, stop the start.
 */
@Injectable()
export class PeriodicScheduler implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly tasks = new Map<string, Task>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly redis: RedisService,
    @InjectConfig() private readonly config: Config,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      for (const key of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance) as object)) {
        const method = instance[key] as Work;
        const options = this.reflector.get<PeriodicOptions | undefined>(PERIODIC, method);
        if (options) this.declare(options, method.bind(instance));
      }
    }
  }

  private declare(options: PeriodicOptions, work: Work): void {
    if (this.tasks.has(options.name))
      throw new Error(`two periodic tasks are named ${options.name}; each needs a name of its own`);
    const intervalMs =
      options.everyMs ??
      (options.every === 'sweep'
        ? this.config.webhooks.sweepMs
        : options.every
          ? EVERY_MS[options.every]
          : undefined);
    if (!intervalMs || intervalMs <= 0)
      throw new Error(`periodic task ${options.name} declares no period (every or everyMs)`);
    const what = typeof options.what === 'function' ? options.what(this.config) : (options.what ?? null);
    this.tasks.set(options.name, new Task(options, intervalMs, what, work));
  }

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    for (const task of this.tasks.values())
      if (this.config.nodeEnv !== 'test' || task.options.runsInTests)
        task.start(this.redis, this.config.redisKeyPrefix);
  }

  /**
   * Stops scheduling and waits for the rounds under way: the database and Redis close after every module is
   * destroyed (onApplicationShutdown), so a round never finds them gone (a shutdown used to log "Cannot use a
   * pool after calling end on the pool").
   */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.stop()));
  }

  /** The declared tasks' names. */
  names(): string[] {
    return [...this.tasks.keys()].sort();
  }

  /**
   * Runs one round of the named task now, in this process (unless one is running here: then 0), without
   * claiming a period; returns how many items it handled (0 after a failure, which is logged).
   */
  run(name: string, period: number | null = null): Promise<number> {
    const task = this.tasks.get(name);
    if (!task) throw new Error(`no periodic task is named ${name}`);
    return task.run(period);
  }
}
