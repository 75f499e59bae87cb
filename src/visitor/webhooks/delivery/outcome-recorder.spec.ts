import { OutcomeRecorder, PendingOutcome, refusedForItsData } from './outcome-recorder';
import type { AttemptOutcome } from '../webhooks.repository';

const outcome = (deliveryId: string): AttemptOutcome => ({
  deliveryId,
  endpointId: 'whep_1',
  attemptNumber: 1,
  attemptedAt: new Date('2030-01-01T00:00:00Z'),
  statusCode: 204,
  durationMs: 3,
  error: null,
  excerpt: '',
  succeeded: true,
  nextAttemptAt: null,
});

/** A store the test holds open: each write waits until the test lets it go, and refuses batches holding `bad`. */
function heldStore(failure: (batch: string[]) => Error | null) {
  const writes: string[][] = [];
  const stored: string[] = [];
  let release: (() => void) | null = null;
  const write = async (batch: PendingOutcome<null>[]) => {
    const ids = batch.map((b) => b.outcome.deliveryId);
    writes.push(ids);
    if (writes.length === 1) await new Promise<void>((r) => (release = r));
    const e = failure(ids);
    if (e) throw e;
    stored.push(...ids);
    return { settled: Promise.resolve() };
  };
  return { writes, stored, write, release: () => release!() };
}

const settle = (p: Promise<void>) =>
  p.then(
    () => 'stored',
    (e: Error) => e.message,
  );

describe('OutcomeRecorder', () => {
  it('rewrites a batch the database refused for one row one outcome at a time, so only that one fails', async () => {
    const refused = Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
    const store = heldStore((ids) => (ids.includes('dlv_gone') ? refused : null));
    const recorder = new OutcomeRecorder<null>(store.write);
    const first = settle(recorder.record(outcome('dlv_first'), null));
    // These end while the first statement runs, so they go together in the next.
    const rest = ['dlv_a', 'dlv_gone', 'dlv_b'].map((id) => settle(recorder.record(outcome(id), null)));
    store.release();
    expect(await Promise.all([first, ...rest])).toEqual([
      'stored',
      'stored',
      'violates foreign key constraint',
      'stored',
    ]);
    expect(store.writes).toEqual([
      ['dlv_first'],
      ['dlv_a', 'dlv_gone', 'dlv_b'],
      ['dlv_a'],
      ['dlv_gone'],
      ['dlv_b'],
    ]);
    expect(store.stored).toEqual(['dlv_first', 'dlv_a', 'dlv_b']);
  });

  it('stops rewriting one at a time when a write fails for another reason, failing the rest with it', async () => {
    const refused = Object.assign(new Error('violates foreign key constraint'), { code: '23503' });
    const lost = new Error('Connection terminated unexpectedly');
    const store = heldStore((ids) =>
      ids.includes('dlv_gone') ? refused : ids.length === 1 && ids[0] === 'dlv_b' ? lost : null,
    );
    const recorder = new OutcomeRecorder<null>(store.write);
    const first = settle(recorder.record(outcome('dlv_first'), null));
    const rest = ['dlv_a', 'dlv_gone', 'dlv_b', 'dlv_c'].map((id) =>
      settle(recorder.record(outcome(id), null)),
    );
    store.release();
    expect(await Promise.all([first, ...rest])).toEqual([
      'stored',
      'stored',
      'violates foreign key constraint',
      'Connection terminated unexpectedly',
      'Connection terminated unexpectedly',
    ]);
    expect(store.writes).toEqual([
      ['dlv_first'],
      ['dlv_a', 'dlv_gone', 'dlv_b', 'dlv_c'],
      ['dlv_a'],
      ['dlv_gone'],
      ['dlv_b'],
    ]);
  });

  it('fails the whole batch, without rewriting it, when the database is not there', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const store = heldStore((ids) => (ids.length > 1 ? lost : null));
    const recorder = new OutcomeRecorder<null>(store.write);
    const first = settle(recorder.record(outcome('dlv_first'), null));
    const rest = ['dlv_a', 'dlv_b'].map((id) => settle(recorder.record(outcome(id), null)));
    store.release();
    expect(await Promise.all([first, ...rest])).toEqual([
      'stored',
      'Connection terminated unexpectedly',
      'Connection terminated unexpectedly',
    ]);
    expect(store.writes).toEqual([['dlv_first'], ['dlv_a', 'dlv_b']]);
  });

  it('knows a refusal for the data from other failures by its SQLSTATE', () => {
    for (const code of ['23503', '23505', '22021', '22P05']) expect(refusedForItsData({ code })).toBe(true);
    for (const e of [{ code: '57P01' }, { code: '08006' }, { code: 'ECONNREFUSED' }, new Error('x'), null])
      expect(refusedForItsData(e)).toBe(false);
  });
});
