import type { PassOutcome } from './pass.sender';
import { passIdsOf, passJob } from './pass-job';
import { sendPasses } from './visits.jobs';

/** A sender whose sends end when the test says, recording how many run at once. */
function heldSender() {
  const pending = new Map<string, { resolve: (o: PassOutcome) => void; reject: (e: Error) => void }>();
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const sender = {
    send: (id: string) =>
      new Promise<PassOutcome>((resolve, reject) => {
        started.push(id);
        most = Math.max(most, ++running);
        pending.set(id, {
          resolve: (o) => (running--, resolve(o)),
          reject: (e) => (running--, reject(e)),
        });
      }),
  };
  /** Lets the event loop run the sends' continuations. */
  const settle = () => new Promise((r) => setImmediate(r));
  return { sender, pending, started, most: () => most, settle };
}

describe('sending the passes of one job', () => {
  it('sends at most four at once, every one of them, and answers their outcomes in order', async () => {
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const h = heldSender();
    const done = sendPasses(h.sender, ids);
    await h.settle();
    expect(h.started).toEqual(['p1', 'p2', 'p3', 'p4']);
    h.pending.get('p2')!.resolve('sent');
    await h.settle();
    expect(h.started).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    for (const id of ['p1', 'p3', 'p4', 'p5']) h.pending.get(id)!.resolve(id === 'p3' ? 'skipped' : 'sent');
    await h.settle();
    h.pending.get('p6')!.resolve('failed');
    expect(await done).toEqual(['sent', 'sent', 'skipped', 'sent', 'sent', 'failed']);
    expect(h.most()).toBe(4);
  });

  it('a send that fails leaves the others to be sent, then fails the job with the first failure in order', async () => {
    const h = heldSender();
    const done = sendPasses(h.sender, ['p1', 'p2', 'p3', 'p4', 'p5']);
    const outcome = done.then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await h.settle();
    h.pending.get('p3')!.reject(new Error('p3 broke'));
    h.pending.get('p2')!.reject(new Error('p2 broke'));
    await h.settle();
    for (const id of ['p1', 'p4', 'p5']) h.pending.get(id)!.resolve('sent');
    expect(await outcome).toBe('p2 broke');
    expect(h.started).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('takes jobs of both shapes: merged ones, and one pass from before passes were merged', () => {
    expect(passJob(['pass_a', 'pass_b'])).toEqual({ passIds: ['pass_a', 'pass_b'], passId: 'pass_a' });
    expect(passIdsOf(passJob(['pass_a', 'pass_b']))).toEqual(['pass_a', 'pass_b']);
    expect(passIdsOf({ passId: 'pass_old' })).toEqual(['pass_old']);
  });
});
