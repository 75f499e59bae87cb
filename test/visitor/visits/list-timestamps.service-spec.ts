import { Client, types } from 'pg';
import { timestamptzToIso } from '../../../src/database/timestamps';

/** PostgreSQL's own text forms of timestamps (as the driver receives them), against the Date-based conversion. */
describe('timestamptzToIso', () => {
  // The test run's server: DATABASE_URL's, or the embedded one the global setup started when it is unset.
  const pg = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  const parse = types.getTypeParser(1184, 'text') as (text: string) => Date;
  const values = [
    '2026-11-16 13:37:36.586123+00',
    '2026-11-16 13:37:36.5+00',
    '2026-11-16 13:37:36+00',
    '2026-11-16 13:37:36.000999+00',
    '2024-02-29 23:59:59.999999+00',
    '1999-12-31 00:00:00.01+00',
  ];

  beforeAll(() => pg.connect());
  afterAll(() => pg.end());

  async function texts(timeZone: string): Promise<string[]> {
    await pg.query(`SET TIME ZONE '${timeZone}'`);
    const { rows } = await pg.query<{ t: string }>(`SELECT unnest($1::timestamptz[])::text AS t`, [values]);
    return rows.map((r) => r.t);
  }

  it('gives what Date#toISOString gives for every UTC text form (fraction cut to milliseconds)', async () => {
    const utc = await texts('UTC');
    expect(utc.map(timestamptzToIso)).toEqual(utc.map((t) => parse(t).toISOString()));
    expect(utc.map(timestamptzToIso)).toEqual([
      '2026-11-16T13:37:36.586Z',
      '2026-11-16T13:37:36.500Z',
      '2026-11-16T13:37:36.000Z',
      '2026-11-16T13:37:36.000Z',
      '2024-02-29T23:59:59.999Z',
      '1999-12-31T00:00:00.010Z',
    ]);
  });

  it('converts through a Date when the session time zone is not UTC', async () => {
    const saoPaulo = await texts('America/Sao_Paulo');
    expect(saoPaulo[0]).toMatch(/-03$/);
    expect(saoPaulo.map(timestamptzToIso)).toEqual((await texts('UTC')).map((t) => parse(t).toISOString()));
  });
});
