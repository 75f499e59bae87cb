import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDataSource } from '../database/data-source.factory';
import { isSeeder, Seeder, SeedOptions } from './seeder';

const SRC_ROOT = resolve(__dirname, '..');

function findSeeders(dir = SRC_ROOT): Seeder[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return findSeeders(p);
      if (!/\.seeder\.(ts|js)$/.test(e.name) || e.name.endsWith('.d.ts')) return [];
      return Object.values(require(p) as Record<string, unknown>).filter(isSeeder);
    })
    .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export interface SeedReport {
  seeded: boolean;
  counts: Record<string, Record<string, number>>;
}

/**
 * Runs every seeder. With `onlyIfFirst`, does nothing when a demo seed already ran (first start only);
 * the marker row in ops.seed_run is written in the same transaction as the data.
 */
export async function runSeed(
  url: string,
  opts: SeedOptions & { onlyIfFirst?: boolean },
): Promise<SeedReport> {
  const ds = await createDataSource({ url, poolSize: 4, applicationName: 'gatehouse-seed' }).initialize();
  try {
    const done = (await ds.query(`SELECT 1 FROM ops.seed_run WHERE name = 'demo'`)) as unknown[];
    if (opts.onlyIfFirst && done.length > 0) return { seeded: false, counts: {} };
    const counts: Record<string, Record<string, number>> = {};
    for (const seeder of findSeeders()) {
      opts.log(`seeding ${seeder.name} (scale ${opts.scale})`);
      counts[seeder.name] = await seeder.run(ds, opts);
    }
    await ds.query(
      `INSERT INTO ops.seed_run (name, scale) VALUES ('demo', $1) ON CONFLICT (name) DO UPDATE SET scale = EXCLUDED.scale, seeded_at = now()`,
      [opts.scale],
    );
    return { seeded: true, counts };
  } finally {
    await ds.destroy();
  }
}
