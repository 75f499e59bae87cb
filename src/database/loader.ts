import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Entities and migrations are found by file name (`*.entity.ts|js` below src/, every file in migrations/),
 * loaded with require() so the same code works compiled (dist/) and under jest (TypeScript).
 */
const SRC_ROOT = resolve(__dirname, '..');
const MIGRATIONS_DIR = resolve(__dirname, '../../migrations');
const isCode = (f: string) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !/\.spec\.(ts|js)$/.test(f);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

type Ctor = abstract new (...args: never[]) => unknown;

function classesOf(file: string): Ctor[] {
  return Object.values(require(file) as Record<string, unknown>).filter(
    (v): v is Ctor => typeof v === 'function',
  );
}

export function loadEntities(): Ctor[] {
  return walk(SRC_ROOT)
    .filter((f) => /\.entity\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
    .flatMap(classesOf);
}

export function loadMigrations(): Ctor[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter(isCode)
    .sort()
    .flatMap((f) => classesOf(join(MIGRATIONS_DIR, f)));
}
