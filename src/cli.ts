#!/usr/bin/env node
import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { ConfigError, loadConfig } from './config/config';
import { resolveDatabase, runMigrations, ResolvedDatabase } from './database/database-setup';
import { createDataSource } from './database/data-source.factory';
import { CliCommand, CliContext, isCliCommand, UsageError } from './cli/cli-command';

/** Operator CLI: `npm run cli -- <command>` or the `gatehouse` bin. Commands are the `*.command.ts` files. */
function findCommands(dir = __dirname): CliCommand[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return findCommands(p);
    if (!/\.command\.(ts|js)$/.test(e.name) || e.name.endsWith('.d.ts')) return [];
    return Object.values(require(p) as Record<string, unknown>).filter(isCliCommand);
  });
}

function help(commands: CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.usage.length), 6);
  return [
    'Usage: gatehouse <command> [options]   (npm run cli -- <command>)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    `  ${'--help'.padEnd(width)}  Show this list`,
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const commands = findCommands().sort((a, b) => a.name.localeCompare(b.name));
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help(commands)}\n`);
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`gatehouse: unknown command "${name}"\n\n${help(commands)}\n`);
    return 2;
  }
  if (args.includes('--help')) {
    process.stdout.write(`Usage: gatehouse ${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  const config = loadConfig();
  let db: ResolvedDatabase | null = null;
  let ds: DataSource | null = null;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const ctx: CliContext = {
    config,
    log,
    database: async () => (db ??= await resolveDatabase(config, log)),
    dataSource: async () => {
      if (ds) return ds;
      const { url } = await ctx.database();
      await runMigrations(url);
      ds = await createDataSource({ url, poolSize: 2, applicationName: 'gatehouse-cli' }).initialize();
      return ds;
    },
  };
  try {
    const result = await command.run(args, ctx);
    process.stdout.write(typeof result === 'string' ? `${result}\n` : `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await (ds as DataSource | null)?.destroy();
    await (db as ResolvedDatabase | null)?.embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError || e instanceof ConfigError)
      process.stderr.write(`gatehouse: ${e.message}\n`);
    else process.stderr.write(`gatehouse: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
