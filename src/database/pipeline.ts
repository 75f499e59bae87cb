/**
 * What a transaction's statements written together rely on, with no dependency (the bench's bare floor uses it too):
 * one socket write for the statements of a turn, and their answers taken in order.
 */

/** Sockets whose writes are held until the current run of callbacks and promise continuations ends. */
const corked = new WeakSet<object>();

/**
 * Holds a client's socket writes until this turn's callbacks and promise continuations have run (`process.nextTick`
 * runs after the microtask queue drains): the statements a transaction writes one after the other without waiting
 * (the outbox's INSERTs, the idempotency answer, COMMIT) leave in one write instead of one per statement. No-op for
 * the pool, whose statements each take their own client.
 */
export function writeTogether(conn: object): void {
  const stream = (conn as { connection?: { stream?: { cork?(): void; uncork(): void } } }).connection?.stream;
  if (!stream?.cork || corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}

/**
 * The answers of statements written together (promises, or values for steps left out), once all have answered: a
 * statement after a failed one fails only with "transaction aborted", so the first failure in order is thrown.
 */
export async function allAnswered<T extends readonly unknown[]>(
  written: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(written);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
