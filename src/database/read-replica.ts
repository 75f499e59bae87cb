import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource } from './data-source.factory';

/**
 * The DataSource lag-tolerant reads are injected with (the public content repositories): the primary's own
 * DataSource when DATABASE_READ_URL is unset, else one whose statements the ReadReplica routes. See
 * docs/decisions.md, "A read replica for the public API", for which reads use it.
 */
export const READ_DATA_SOURCE = Symbol('READ_DATA_SOURCE');

/** How often a replica marked down is tried again (and how long a connection attempt to it may take). */
export const REPLICA_RECHECK_MS = 1000;
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** A replica statement that has not answered in this time counts as a replica gone silent (then the primary runs it). */
const REPLICA_QUERY_TIMEOUT_MS = 5000;

export type ReplicaState = 'off' | 'up' | 'down';

/**
 * Routes reads to a streaming replica while it answers, and to the primary while it does not. A statement the
 * replica fails to run because it is unreachable, shutting down, or silent is run again on the primary (the
 * caller sees the primary's answer, never the failure) and the replica is marked down with one log line; from
 * then on reads go straight to the primary, and the replica is tried again every REPLICA_RECHECK_MS in the
 * background (no request waits on it) until it answers: one log line, and reads go back to it.
 */
export class ReadReplica implements OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplica');
  private replica: DataSource | null = null;
  private up = false;
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

  /** Connects once (bounded by the connection timeout); a replica that does not answer is tried again later. */
  async start(): Promise<void> {
    if (this.url === null) return;
    if (await this.connect()) this.logger.log('read replica connected: public reads go to it');
    else this.markDown('it does not answer at start-up');
  }

  /**
   * Runs `work` on the replica while it is up, else on the primary. A statement the replica fails is run again on
   * the primary: when the replica is unavailable (it is also marked down), and for any other error too, since
   * the replica may fail what the primary answers (a recovery conflict; a schema migration not yet replayed).
   */
  async run<T>(work: (ds: DataSource) => Promise<T>): Promise<T> {
    const replica = this.up ? this.replica : null;
    if (!replica) return work(this.primary);
    try {
      return await work(replica);
    } catch (e) {
      if (isUnavailable(e) && this.replica === replica) this.markDown((e as Error).message);
      return work(this.primary);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.drop();
  }

  private async connect(): Promise<boolean> {
    const ds = createDataSource({
      url: this.url!,
      poolSize: this.poolSize,
      applicationName: 'gatehouse-read',
      connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: REPLICA_QUERY_TIMEOUT_MS,
    });
    try {
      await ds.initialize();
      await ds.query('SELECT 1');
    } catch {
      if (ds.isInitialized) await ds.destroy().catch(() => undefined);
      return false;
    }
    if (this.closed) {
      await ds.destroy().catch(() => undefined);
      return false;
    }
    this.replica = ds;
    this.up = true;
    return true;
  }

  private markDown(why: string): void {
    this.up = false;
    this.logger.warn(`read replica unavailable (${why}): reads go to the primary until it answers again`);
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
      void this.connect().then((ok) => {
        this.timer = null;
        if (ok) this.logger.log('read replica answers again: public reads go back to it');
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
  const query: DataSource['query'] = (text, parameters) => router.run((ds) => ds.query(text, parameters));
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
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
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
