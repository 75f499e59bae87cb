import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * One database transaction plus the work that must happen only after it commits (enqueueing jobs that carry
 * ids of rows the transaction wrote). Services receive the UnitOfWork and pass `uow.manager` to repositories.
 */
export class UnitOfWork {
  private readonly after: (() => unknown)[] = [];
  constructor(readonly manager: EntityManager) {}

  afterCommit(fn: () => unknown): void {
    this.after.push(fn);
  }

  /** @internal */
  callbacks(): (() => unknown)[] {
    return this.after;
  }
}

/** Options of one transaction. */
export interface RunOptions {
  /**
   * The work's result is the HTTP response of the request that runs it (the controller returns it as is), so
   * participants may record it in the same transaction (the idempotency layer stores it as the key's response).
   */
  isResponse?: boolean;
  /**
   * The response within the work's result, when the result carries more than the response (undefined: this
   * commit has no response to store, e.g. it records an outcome the request then answers with an error).
   */
  responseOf?: (result: never) => unknown;
}

/**
 * `tx.run(work, IS_RESPONSE)`: the transaction whose result the route returns as is, so an idempotent POST stores
 * it as the key's response before the commit (a crash after the commit leaves a replayable key, not a request to
 * run again). Only for a request's one transaction that makes its change and builds its response.
 */
export const IS_RESPONSE: RunOptions = Object.freeze({ isResponse: true });

/**
 * Something that writes in every transaction just before it commits (the idempotency layer), or that must run
 * right after the commit (a test's crash point). Registered once per application with `Transactions.participate`.
 */
export interface TransactionParticipant {
  beforeCommit?(manager: EntityManager, result: unknown, options: RunOptions): Promise<void>;
  afterCommit?(): void;
}

@Injectable()
export class Transactions {
  private readonly logger = new Logger('Transactions');
  private readonly participants: TransactionParticipant[] = [];
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  participate(p: TransactionParticipant): void {
    this.participants.push(p);
  }

  async run<T>(work: (uow: UnitOfWork) => Promise<T>, options: RunOptions = {}): Promise<T> {
    let uow: UnitOfWork | null = null;
    const result = await this.ds.transaction(async (manager) => {
      uow = new UnitOfWork(manager);
      const done = await work(uow);
      for (const p of this.participants) await p.beforeCommit?.(manager, done, options);
      return done;
    });
    for (const p of this.participants) p.afterCommit?.();
    for (const fn of (uow as UnitOfWork | null)?.callbacks() ?? []) {
      try {
        await fn();
      } catch (e) {
        // After-commit work is an accelerator (e.g. enqueueing); sweepers recover from its failure.
        this.logger.warn(`after-commit work failed: ${(e as Error).message}`);
      }
    }
    return result;
  }
}
