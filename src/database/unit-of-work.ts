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

@Injectable()
export class Transactions {
  private readonly logger = new Logger('Transactions');
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async run<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    let uow: UnitOfWork | null = null;
    const result = await this.ds.transaction(async (manager) => {
      uow = new UnitOfWork(manager);
      return work(uow);
    });
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
