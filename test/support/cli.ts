import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';

/** The built operator CLI. */
export const CLI = join(__dirname, '../../dist/src/cli.js');

/**
 * Runs the built operator CLI (`dist/src/cli.js`) and returns what it did (status, stdout, stderr); `env` is added to
 * this process's environment.
 */
export function spawnCli(env: Record<string, string>, ...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
}

/** Runs the built operator CLI on a test database and parses the JSON it prints (a failing run throws). */
export function runCli(databaseUrl: string, ...args: string[]) {
  const r = spawnCli({ DATABASE_URL: databaseUrl, NODE_ENV: 'test' }, ...args);
  if (r.status !== 0) throw new Error(`gatehouse ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
