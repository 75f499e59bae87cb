import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Migrations are found by file name (every file in migrations/), loaded with require() so the same code works compiled (dist/) and under jest (TypeScript).
 */
const MIGRATIONS_DIR = resolve(__dirname, '../../migrations');
const isCode = (f: string) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !/\.spec\.(ts|js)$/.test(f);

type Ctor = abstract new (...args: never[]) => unknown;

function classesOf(file: string): Ctor[] {
  return Object.values(require(file) as Record<string, unknown>).filter(
    (v): v is Ctor => typeof v === 'function',
  );
}

export function loadMigrations(): Ctor[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter(isCode)
    .sort()
    .flatMap((f) => classesOf(join(MIGRATIONS_DIR, f)));
}
