import { DataSource } from 'typeorm';
import { bootServiceContext, ServiceContext } from '../harness';
import { preparedQuery } from '../../src/database/prepared';
import { Transactions } from '../../src/database/unit-of-work';

/**
 * `Transactions.run` on a pipelined client: statements the work does not wait for (`UnitOfWork.defer`) commit with
 * it or not at all, and the failure reported is the statement that failed, not the "transaction aborted" of the
 * statements written behind it.
 */
describe('database/Transactions (pipelined)', () => {
  let t: ServiceContext;
  let ds: DataSource;
  let tx: Transactions;
  const names = async () =>
    (await ds.query(`SELECT name FROM public.tx_probe ORDER BY id`)).map((r: { name: string }) => r.name);
  const insert = (on: Parameters<typeof preparedQuery>[0], id: number, name: string | null) =>
    preparedQuery(on, 'tx_probe_insert', `INSERT INTO public.tx_probe (id, name) VALUES ($1, $2)`, [
      id,
      name,
    ]);

  beforeAll(async () => {
    t = await bootServiceContext({ env: { RUN_WORKER: 'false' } });
    ds = t.app.get(DataSource);
    tx = t.app.get(Transactions);
    await ds.query(`CREATE TABLE public.tx_probe (id int PRIMARY KEY, name text NOT NULL)`);
  });
  beforeEach(() => ds.query(`DELETE FROM public.tx_probe`));
  afterAll(async () => {
    await t?.close();
  });

  it('commits deferred statements with the awaited ones, in the order written', async () => {
    const result = await tx.run(async (uow) => {
      uow.defer(insert(uow.manager, 1, 'first'));
      uow.defer(insert(uow.manager, 2, 'second'));
      const [seen] = await preparedQuery<{ n: number }>(
        uow.manager,
        'tx_probe_count',
        `SELECT count(*)::int AS n FROM public.tx_probe`,
        [],
      );
      return seen.n;
    });
    expect(result).toBe(2); // the deferred INSERTs went out before the SELECT, on the same connection
    expect(await names()).toEqual(['first', 'second']);
  });

  it('a deferred statement that fails rolls everything back and is the error thrown', async () => {
    const run = tx.run(async (uow) => {
      await insert(uow.manager, 1, 'kept?');
      uow.defer(insert(uow.manager, 2, null)); // NOT NULL violation
      return 'done';
    });
    await expect(run).rejects.toMatchObject({ code: '23502' });
    expect(await names()).toEqual([]);
  });

  it('the deferred failure is reported even when a later awaited statement failed because of it', async () => {
    const run = tx.run(async (uow) => {
      uow.defer(insert(uow.manager, 1, null)); // fails first
      await insert(uow.manager, 2, 'after'); // then "current transaction is aborted"
    });
    await expect(run).rejects.toMatchObject({ code: '23502' });
    expect(await names()).toEqual([]);
  });

  it('a refusal thrown by the work rolls back what was written, deferred or not', async () => {
    const run = tx.run(async (uow) => {
      await insert(uow.manager, 1, 'a');
      uow.defer(insert(uow.manager, 2, 'b'));
      throw new Error('refused');
    });
    await expect(run).rejects.toThrow('refused');
    expect(await names()).toEqual([]);
    // The connection went back to the pool usable, outside any transaction.
    await tx.run(async (uow) => insert(uow.manager, 3, 'c'));
    expect(await names()).toEqual(['c']);
  });

  it('a participant whose commit-time step fails in code (before its statement) rolls the transaction back', async () => {
    // The idempotency layer's step serializes the response first: a throw there must not let COMMIT through.
    tx.participate({
      withCommit: (_m, result) => {
        if (result === 'unserializable') throw new Error('cannot serialize the response');
        return undefined;
      },
    });
    const run = tx.run(async (uow) => {
      await insert(uow.manager, 1, 'changed?');
      return 'unserializable';
    });
    await expect(run).rejects.toThrow('cannot serialize the response');
    expect(await names()).toEqual([]);
  });

  it('a deferred step that fails in code after its statement was answered leaves the commit standing, answered as committed', async () => {
    // The statement succeeded and COMMIT was written behind it: the change stands, so the request must not
    // answer with an error while a retry of its idempotency key would replay this success.
    const result = await tx.run(async (uow) => {
      await insert(uow.manager, 1, 'first');
      uow.defer(
        insert(uow.manager, 2, 'second').then(() => {
          throw new Error('a follow-up failed in code');
        }),
      );
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(await names()).toEqual(['first', 'second']);
  });
});
