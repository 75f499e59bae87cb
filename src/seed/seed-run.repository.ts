import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** ops.seed_run: which seeds ran (the demo seed of a first start, `gatehouse seed`), at what scale. */
export class SeedRunRepository {
  constructor(private readonly ds: DataSource) {}

  /** On the DataSource of an application's object graph. */
  static of(app: Pick<INestApplicationContext, 'get'>): SeedRunRepository {
    return new SeedRunRepository(app.get(DataSource));
  }

  async ran(name: string): Promise<boolean> {
    return (
      ((await this.ds.query(`SELECT 1 FROM ops.seed_run WHERE name = $1`, [name])) as unknown[]).length > 0
    );
  }

  async record(name: string, scale: number): Promise<void> {
    await this.ds.query(
      `INSERT INTO ops.seed_run (name, scale) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET scale = EXCLUDED.scale, seeded_at = now()`,
      [name, scale],
    );
  }
}
