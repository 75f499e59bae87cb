import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { allAnswered, writeTogether } from './pipeline';
import { endTransaction, transactionClient } from './prepared';

/**
 * One database transaction plus the work that must happen only after it commits (enqueueing jobs that carry
 * ids of rows the transaction wrote). Services receive the UnitOfWork and pass `uow.manager` to repositories.
 */
export class UnitOfWork {
  private readonly after: (() => unknown)[] = [];
  private readonly written: Promise<unknown>[] = [];
  private readonly atCommit: (() => void)[] = [];
  constructor(readonly manager: EntityManager) {}

  afterCommit(fn: () => unknown): void {
    this.after.push(fn);
  }

  /**
   * Statements already written to this transaction's connection whose answers the work does not wait for (the
   * outbox's event and delivery rows): they go out with what follows them, COMMIT at the latest, and the
   * transaction commits only if every one of them succeeded. Each must be written before `defer` is called
   * (`preparedQuery` on `manager` writes at once), so its place among the transaction's statements is fixed.
   */
  defer(written: Promise<unknown>): void {
    written.catch(() => undefined); // observed in `Transactions.run`
    this.written.push(written);
  }

  /**
   * Writes statements just before COMMIT, in the same round trip: `write` runs once, when the work has ended, and
   * writes its statements at once, deferring their outcomes (`defer`). For what a transaction gathers as it goes
   * and writes in one statement (the outbox's events of the transaction).
   */
  beforeCommit(write: () => void): void {
    this.atCommit.push(write);
  }

  /** @internal */
  commitWriters(): (() => void)[] {
    return this.atCommit;
  }

  /** @internal */
  deferred(): Promise<unknown>[] {
    return this.written;
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
  /**
   * Writes statements right behind BEGIN, before the work's first (`preparedQuery` on `uow.manager`, without
   * awaiting): they share its round trip. Their outcomes are the participant's to read later (`beforeCommit`), and
   * to `uow.defer` so a failure among them is the one reported.
   */
  atBegin?(uow: UnitOfWork, options: RunOptions): void;
  beforeCommit?(manager: EntityManager, result: unknown, options: RunOptions): Promise<void>;
  /**
   * Writes its statements at once (`preparedQuery` on `manager`, before any await) and returns their outcome, or
   * undefined when it has none: COMMIT is written right behind it, in the same round trip, and the transaction
   * commits only if it succeeded.
   */
  withCommit?(manager: EntityManager, result: unknown, options: RunOptions): Promise<void> | undefined;
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

  /**
   * Runs `work` in one transaction on one pooled connection. BEGIN is written without waiting for its answer, so
   * it goes out with the work's first statement; the statements gathered during the work (`UnitOfWork.beforeCommit`),
   * the participants' statements (`withCommit`) and COMMIT go out after the work's last awaited statement and the
   * deferred ones (`UnitOfWork.defer`), together: a write whose statements depend on each other in turn pays one
   * round trip per dependency, not one per statement. When any of those statements failed PostgreSQL answers COMMIT
   * with ROLLBACK, and the first failure (in the order written) is thrown; a deferred step that failed only in its
   * own code after its statement succeeded is logged, and the run answers as committed.
   */
  async run<T>(work: (uow: UnitOfWork) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const { runner, client } = await transactionClient(this.ds);
    const uow = new UnitOfWork(runner.manager);
    let open = true;
    try {
      // Held with the work's first statement (written before this turn ends), so both leave in one write.
      writeTogether(client);
      const begun = client.query('BEGIN');
      uow.defer(begun);
      for (const p of this.participants) p.atBegin?.(uow, options);
      let result: T;
      try {
        result = await work(uow);
      } catch (e) {
        // A statement the work did not wait for may have failed first (the work then saw "transaction aborted").
        throw (await firstFailure(uow.deferred())) ?? e;
      }
      for (const p of this.participants) await p.beforeCommit?.(runner.manager, result, options);
      writeTogether(client);
      for (const write of uow.commitWriters()) write();
      const last = this.participants.map((p) => p.withCommit?.(runner.manager, result, options));
      const commit = client.query('COMMIT');
      const failure = await firstFailure([...uow.deferred(), ...last.filter((w) => w !== undefined), commit]);
      open = false;
      if (failure) {
        const ended = await commit.then(
          (r) => r.command,
          () => null,
        );
        if (ended !== 'COMMIT') throw failure;
        // A deferred step that failed in code after its statement was answered (in its own `.then`) cannot stop
        // the COMMIT written behind it: the change stands, and the idempotency layer stored this result as the
        // key's response. So the request answers as committed (a retry would replay the same), and the log says so.
        this.logger.error(
          `a step of a committed transaction failed in code; the change stands: ${(failure as Error).message}`,
        );
      }
      const { command } = await commit;
      if (command !== 'COMMIT') throw new Error(`the transaction ended with ${command} instead of COMMIT`);
      for (const p of this.participants) p.afterCommit?.();
      for (const fn of uow.callbacks()) {
        try {
          await fn();
        } catch (e) {
          // After-commit work is an accelerator (e.g. enqueueing); sweepers recover from its failure.
          this.logger.warn(`after-commit work failed: ${(e as Error).message}`);
        }
      }
      return result;
    } catch (e) {
      // ROLLBACK outside a transaction (COMMIT already answered) is only a warning.
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      endTransaction(runner);
      await runner.release();
    }
  }
}

/** The first of `written` (in order) that failed, once all have answered; undefined when none did. */
const firstFailure = (written: Promise<unknown>[]): Promise<unknown> =>
  allAnswered(written).then(
    () => undefined,
    (e: unknown) => e,
  );
