#!/usr/bin/env node
// `npm run build`: runs `nest build` (nest-cli.json: the swc builder, src/ and migrations/ into dist/ with templates
// and the stylesheet copied, deleteOutDir off) — in place: files are overwritten, never the folder deleted, so a
// running server keeps its files; outputs whose source is gone are removed afterwards (commands, entities and
// migrations are discovered by file name, so a stale one must not linger). `--if-stale` builds only when a source
// file (or the build's own configuration) is newer than the last build, which `npm run cli` uses.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'migrations'];
const CONFIG = [
  '.swcrc',
  'nest-cli.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
  'scripts/build.mjs',
];
const DIST = join(root, 'dist');
const STAMP = join(DIST, '.build-stamp');

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** The newest modification time of the inputs (a deleted source counts through its folder's mtime). */
function newestInput() {
  let newest = 0;
  const see = (p) => (newest = Math.max(newest, statSync(p).mtimeMs));
  for (const s of SOURCES) {
    see(join(root, s));
    for (const f of files(join(root, s))) {
      see(f);
      see(dirname(f));
    }
  }
  for (const c of CONFIG) if (existsSync(join(root, c))) see(join(root, c));
  return newest;
}

/** dist/x/y.js(.map) → x/y.ts; other copied files map to themselves. */
function sourceOf(distFile) {
  const rel = relative(DIST, distFile);
  if (rel === '.build-stamp') return null;
  if (rel.endsWith('.js.map')) return rel.slice(0, -'.js.map'.length) + '.ts';
  if (rel.endsWith('.js')) return rel.slice(0, -'.js'.length) + '.ts';
  return rel;
}

const ifStale = process.argv.includes('--if-stale');
if (ifStale && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput()) process.exit(0);

const started = Date.now();
// `nest build` prints "SWC Running..." on stdout; the build's output goes to stderr so `npm run cli` (which builds
// first when stale) leaves only the command's JSON on stdout.
const nest = spawnSync(process.execPath, [join(root, 'node_modules/@nestjs/cli/bin/nest.js'), 'build'], {
  cwd: root,
  stdio: ['ignore', 2, 'inherit'],
});
if (nest.status !== 0) process.exit(nest.status ?? 1);
// Remove outputs whose source was deleted or renamed (only under the compiled folders; nothing else in dist/).
for (const s of SOURCES)
  for (const f of files(join(DIST, s))) {
    const src = sourceOf(f);
    if (src && !existsSync(join(root, src)) && !existsSync(join(root, src.replace(/\.ts$/, '.js'))))
      rmSync(f);
  }
// The stamp carries the time the build started: a source saved while it ran is newer, so the next run rebuilds.
writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
utimesSync(STAMP, new Date(started), new Date(started));
