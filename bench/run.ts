/**
 * `npm run bench -- <name>…` runs `bench/<name>.bench.ts` (compiled to dist/bench) for each name given, or
 * lists the benchmarks when none is. Each benchmark runs its own baseline in the same run and writes
 * `bench/results/<name>.json` and `.md`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const available = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .map((f) => f.slice(0, -'.bench.js'.length))
  .sort();

async function run(names: string[]): Promise<void> {
  if (names.length === 0) {
    console.log(`usage: npm run bench -- <${available.join('|')}>…`);
    return;
  }
  for (const name of names) {
    if (!available.includes(name)) {
      console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
      process.exitCode = 2;
      return;
    }
  }
  for (const name of names) {
    console.log(`== bench ${name}`);
    const mod = (await import(join(__dirname, `${name}.bench.js`))) as { main: () => Promise<void> };
    await mod.main();
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
