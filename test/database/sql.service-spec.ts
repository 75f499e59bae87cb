import { DataSource } from 'typeorm';
import { bootServiceContext, ServiceContext } from '../harness';
import { change, row, rows } from '../../src/database/sql';

/** The typed SQL helpers against the real driver: what TypeORM answers for each kind of statement. */
describe('database/sql', () => {
  let t: ServiceContext;
  let ds: DataSource;
  beforeAll(async () => {
    t = await bootServiceContext({ env: { RUN_WORKER: 'false' } });
    ds = t.app.get(DataSource);
    await ds.query(`CREATE TABLE public.sql_probe (id int PRIMARY KEY, name text NOT NULL)`);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('rows and row read SELECT and INSERT … RETURNING', async () => {
    expect(
      await rows<{ id: number }>(ds, `INSERT INTO public.sql_probe VALUES (1, 'a'), (2, 'b') RETURNING id`),
    ).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await row<{ name: string }>(ds, `SELECT name FROM public.sql_probe WHERE id = $1`, [2])).toEqual({
      name: 'b',
    });
    expect(await row(ds, `SELECT name FROM public.sql_probe WHERE id = $1`, [9])).toBeNull();
  });

  it('change names the rows returned and the rows affected, with and without RETURNING', async () => {
    expect(
      await change<{ id: number }>(
        ds,
        `UPDATE public.sql_probe SET name = 'z' WHERE id > $1 RETURNING id`,
        [0],
      ),
    ).toEqual({ rows: [{ id: 1 }, { id: 2 }], affected: 2 });
    expect(await change(ds, `UPDATE public.sql_probe SET name = 'y' WHERE id = $1`, [1])).toEqual({
      rows: [],
      affected: 1,
    });
    expect(await change(ds, `DELETE FROM public.sql_probe WHERE id = $1`, [9])).toEqual({
      rows: [],
      affected: 0,
    });
    await ds.transaction(async (m) => {
      expect((await change(m, `DELETE FROM public.sql_probe`)).affected).toBe(2);
    });
  });
});
