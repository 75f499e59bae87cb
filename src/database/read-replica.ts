import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource } from './data-source.factory';

/**
 * The DataSource lag-tolerant reads are injected with (the public content repositories): the primary's own
 * DataSource when DATABASE_READ_URL is unset, else one whose statements the ReadReplica routes. See
 * docs/decisions.md, "A read replica for the public API", for which reads use it.
 */
export const READ_DATA_SOURCE = Symbol('READ_DATA_SOURCE');

/** How often a replica that does not serve is checked again. */
const REPLICA_RECHECK_MS = 1000;
/** How long getting a connection to the replica may take before it counts as unreachable. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** A replica statement that has not answered in this time counts as a replica gone silent (then the primary runs it). */
const REPLICA_QUERY_TIMEOUT_MS = 5000;

export type ReplicaState = 'off' | 'up' | 'down';

/**
 * Routes reads to a streaming replica while it serves, and to the primary while it does not. A statement the
 * replica fails to run because it is unreachable, shutting down, or silent is run again on the primary (the
 * caller sees the primary's answer, never the failure) and the replica is marked down with one log line; from
 * then on reads go straight to the primary, and the replica is checked again every REPLICA_RECHECK_MS in the
 * background (no request waits on it). It serves again, with one log line, once it answers and has replayed
 * what the primary had written at the previous check: a replica that restarts or reconnects far behind is not
 * read until it has caught up, while one that keeps up under writes passes within two checks. The same check
 * admits it at start-up. While it serves, its reads lag the primary by its replay delay (not bounded here).
 */
export class ReadReplica implements OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplica');
  /** The replica's pool: open while it serves, and while a check waits for it to catch up. */
  private replica: DataSource | null = null;
  private up = false;
  /** The primary's WAL position at the previous check, which the replica must have replayed to serve. */
  private mark: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The DataSource to inject under READ_DATA_SOURCE. */
  readonly source: DataSource;

  constructor(
    private readonly primary: DataSource,
    private readonly url: string | null,
    private readonly poolSize: number,
  ) {
    this.source = url === null ? primary : routedSource(primary, this);
  }

  get state(): ReplicaState {
    return this.url === null ? 'off' : this.up ? 'up' : 'down';
  }

  /** Checks the replica once (bounded by the connection timeout); one that does not serve yet is checked again later. */
  async start(): Promise<void> {
    if (this.url === null) return;
    if (await this.check()) this.serve();
    else {
      this.logger.warn(
        'read replica not serving at start-up: reads go to the primary until it answers and has caught up',
      );
      this.schedule();
    }
  }

  /**
   * Runs `work` on the replica while it serves, else on the primary. A statement the replica fails is run again
   * on the primary: when the replica is unavailable (it is also marked down), and for any other error too, since
   * the replica may fail what the primary answers (a recovery conflict; a schema migration not yet replayed).
   */
  async run<T>(work: (ds: DataSource) => Promise<T>): Promise<T> {
    const replica = this.up ? this.replica : null;
    if (!replica) return work(this.primary);
    try {
      return await work(replica);
    } catch (e) {
      if (isUnavailable(e) && this.up && this.replica === replica) this.markDown((e as Error).message);
      return work(this.primary);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.drop();
  }

  /** Whether the replica answers and has replayed up to the mark (the primary's position now, on a first check). */
  private async check(): Promise<boolean> {
    const now = await this.primary.query(`SELECT pg_current_wal_insert_lsn()::text AS lsn`).then(
      (r: { lsn: string }[]) => r[0].lsn,
      () => null,
    );
    const mark = this.mark ?? now;
    this.mark = now;
    const ds = this.replica ?? (await this.open());
    if (!ds) return false;
    try {
      const [r] = (await ds.query(
        `SELECT NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok`,
        [mark],
      )) as { ok: boolean | null }[];
      return r.ok === true && !this.closed;
    } catch {
      await this.drop();
      return false;
    }
  }

  private async open(): Promise<DataSource | null> {
    const ds = createDataSource({
      url: this.url!,
      poolSize: this.poolSize,
      applicationName: 'gatehouse-read',
      connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: REPLICA_QUERY_TIMEOUT_MS,
    });
    try {
      await ds.initialize();
    } catch {
      if (ds.isInitialized) await ds.destroy().catch(() => undefined);
      return null;
    }
    if (this.closed) {
      await ds.destroy().catch(() => undefined);
      return null;
    }
    return (this.replica = ds);
  }

  private serve(): void {
    this.up = true;
    this.mark = null;
    this.logger.log('read replica serves: public reads go to it');
  }

  private markDown(why: string): void {
    this.up = false;
    this.mark = null;
    this.logger.warn(
      `read replica unavailable (${why}): reads go to the primary until it answers again and has caught up`,
    );
    void this.drop();
    this.schedule();
  }

  /** Ends the replica's pool: its connections are broken, and a fresh pool is made when it answers again. */
  private async drop(): Promise<void> {
    const ds = this.replica;
    this.replica = null;
    if (ds?.isInitialized) await ds.destroy().catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      void this.check().then((ok) => {
        this.timer = null;
        if (ok) this.serve();
        else this.schedule();
      });
    }, REPLICA_RECHECK_MS);
    this.timer.unref();
  }
}

/**
 * The primary's DataSource with `query` routed by the replica: every other member (a transaction, a query
 * runner, the manager) is the primary's, so a use the router does not know still answers, from the primary.
 * `preparedQuery` (prepared.ts) routes through `routerOf` too.
 */
function routedSource(primary: DataSource, router: ReadReplica): DataSource {
  // A statement given a query runner runs on that runner's connection (the primary's), as TypeORM would.
  const query: DataSource['query'] = (text, parameters, runner) =>
    runner ? primary.query(text, parameters, runner) : router.run((ds) => ds.query(text, parameters));
  return new Proxy(primary, {
    get: (target, prop, receiver) =>
      prop === 'query' ? query : prop === ROUTER ? router : Reflect.get(target, prop, receiver),
  });
}

const ROUTER = Symbol('ReadReplica');

/** The ReadReplica routing `ds`, when `ds` is the READ_DATA_SOURCE of a configured replica. */
export function routerOf(ds: DataSource): ReadReplica | undefined {
  return (ds as unknown as { [ROUTER]?: ReadReplica })[ROUTER];
}

/** SQLSTATEs of a server that cannot serve: class 08 (connection exception), 57P01–57P03 (shutdown, starting). */
const UNAVAILABLE_STATES = /^(08...|57P0[123])$/;
/** Socket-level failures and the pg driver's own messages for a connection that is gone or never came. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|connection is closed/i;

function errorCode(e: unknown): string | undefined {
  const err = e as { code?: unknown; driverError?: { code?: unknown } };
  const code = err?.code ?? err?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The replica could not run the statement because it (or the way to it) is gone: the primary can. */
export function isUnavailable(e: unknown): boolean {
  const code = errorCode(e);
  if (code !== undefined && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code))) return true;
  return e instanceof Error && UNAVAILABLE_MESSAGES.test(e.message);
}
