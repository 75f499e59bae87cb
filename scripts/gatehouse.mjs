#!/usr/bin/env node
// The `gatehouse` bin (`npx gatehouse <command>`, or `npx gatehouse <command>`): builds dist/ first when a source is
// newer than the last build (scripts/build.mjs --if-stale, its output on stderr), then runs the operator CLI.
// `npx gatehouse` prints only the command's result on stdout; `npm run cli` adds npm's "> script" banner there.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], {
  cwd: root,
  stdio: ['ignore', 2, 'inherit'],
});
if (build.status !== 0) process.exit(build.status ?? 1);
// required, not imported: the CLI and everything below it are CommonJS.
createRequire(import.meta.url)(join(root, 'dist/src/cli.js'));
