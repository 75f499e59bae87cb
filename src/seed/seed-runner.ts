import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { SeedRunRepository } from './seed-run.repository';
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
 * Runs every seeder in `app`'s object graph (the server's on a first start, the CLI's for `gatehouse seed`). With
 * `onlyIfFirst`, does nothing when a demo seed already ran (first start only); the marker row is ops.seed_run.
 */
export async function runSeed(
  app: Pick<INestApplicationContext, 'get'>,
  opts: SeedOptions & { onlyIfFirst?: boolean },
): Promise<SeedReport> {
  const runs = SeedRunRepository.of(app);
  if (opts.onlyIfFirst && (await runs.ran('demo'))) return { seeded: false, counts: {} };
  const counts: Record<string, Record<string, number>> = {};
  for (const seeder of findSeeders()) {
    opts.log(`seeding ${seeder.name} (scale ${opts.scale})`);
    counts[seeder.name] = await seeder.run(app, opts);
  }
  await runs.record('demo', opts.scale);
  return { seeded: true, counts };
}
