import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Runs the built operator CLI (`dist/src/cli.js`) on a test database and parses the JSON it prints. */
export function runCli(databaseUrl: string, ...args: string[]) {
  return JSON.parse(
    execFileSync(process.execPath, [join(__dirname, '../../dist/src/cli.js'), ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'test' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}
