import type { DataSource } from 'typeorm';

export interface SeedOptions {
  /** 1 is the small demo set; larger values grow every generated table roughly linearly. */
  scale: number;
  log: (line: string) => void;
}

/**
 * A seeder fills one area with deterministic demo data. Seeders live in `*.seeder.ts` files next to their
 * domain and are found by file name (src/seed/seed-runner.ts); `order` decides who runs first.
 */
export interface Seeder {
  name: string;
  order: number;
  run(ds: DataSource, opts: SeedOptions): Promise<Record<string, number>>;
}

export function isSeeder(v: unknown): v is Seeder {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Seeder).run === 'function' &&
    typeof (v as Seeder).name === 'string'
  );
}
