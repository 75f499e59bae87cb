import type { AttemptOutcome } from '../webhooks.repository';

/** The most outcomes one statement records. */
const RECORD_BATCH = 500;

/** An outcome waiting to be stored, with what its batch's follow-ups need (`E`: its endpoint). */
export interface PendingOutcome<E> {
  outcome: AttemptOutcome;
  endpoint: E;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * Whether PostgreSQL refused a statement for the data it was given (SQLSTATE classes 22, data exception, and 23,
 * integrity constraint violation): another statement without the offending row would succeed. A lost connection
 * or a timeout is not such a refusal.
 */
export function refusedForItsData(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Outcomes waiting for one statement, group-commit style: the first waits for nothing, and the ones that end while
 * its statement runs go together in the next (see DeliveryService). One outcome the database refuses for its data
 * (its delivery deleted meanwhile by a sandbox reset or the retention purge) must not cost the others theirs: a
 * batch so refused is written again one outcome at a time, and only the refused ones fail. Any other failure fails
 * the batch (each outcome's claim then lapses and the delivery is attempted again).
 */
export class OutcomeRecorder<E> {
  private readonly pending: PendingOutcome<E>[] = [];
  private writing = false;

  /** `write` stores a batch; then each outcome's caller waits for `settled` too (the batch's follow-ups). */
  constructor(private readonly write: (batch: PendingOutcome<E>[]) => Promise<{ settled: Promise<void> }>) {}

  record(outcome: AttemptOutcome, endpoint: E): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ outcome, endpoint, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.length) {
      const batch = this.pending.splice(0, RECORD_BATCH);
      try {
        await this.store(batch);
      } catch (e) {
        if (batch.length > 1 && refusedForItsData(e)) await this.storeEach(batch);
        else batch.forEach((b) => b.reject(e));
      }
    }
    this.writing = false;
  }

  /**
   * One outcome at a time: the refused ones fail alone. A failure that is not about the data (PostgreSQL gone) fails
   * the ones not yet written too, instead of each waiting for its own failure.
   */
  private async storeEach(batch: PendingOutcome<E>[]): Promise<void> {
    for (const [i, one] of batch.entries()) {
      try {
        await this.store([one]);
      } catch (e) {
        one.reject(e);
        if (!refusedForItsData(e)) return batch.slice(i + 1).forEach((b) => b.reject(e));
      }
    }
  }

  private async store(batch: PendingOutcome<E>[]): Promise<void> {
    const { settled } = await this.write(batch);
    void settled.then(() => batch.forEach((b) => b.resolve()));
  }
}
