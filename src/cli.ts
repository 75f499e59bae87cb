#!/usr/bin/env node
import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import type { INestApplicationContext } from '@nestjs/common';
import type * as CliModuleFile from './cli/cli.module';
import { ConfigError, configRedactor, loadConfig, redactUrlPasswords } from './config/config';
import { resolveDatabase, runMigrations, ResolvedDatabase } from './database/database-setup';
import { CliCommand, CliContext, CommandFailed, isCliCommand, UsageError } from './cli/cli-command';
import { formFor, missingArguments, usageForms, wrap } from './cli/usage';
import { progressOn } from './cli/progress';

/** Exit codes of every command (README, "Operator CLI"). */
export const EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

const EXIT_HELP = `Exit codes:
  0   done; the result is JSON on stdout
  1   the command failed (message on stderr)
  2   usage error: unknown command, missing or malformed arguments
  78  configuration error (an environment variable; message names it)`;

/** Help is wrapped to the terminal (at most 100 columns), or to 80 when not printed to a terminal. */
const WIDTH = Math.min(process.stdout.isTTY ? (process.stdout.columns ?? 80) : 80, 100);

/** Operator CLI: `npx gatehouse <command>` or the `gatehouse` bin. Commands are the `*.command.ts` files. */
function findCommands(dir = __dirname): CliCommand[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return findCommands(p);
    if (!/\.command\.(ts|js)$/.test(e.name) || e.name.endsWith('.d.ts')) return [];
    return Object.values(require(p) as Record<string, unknown>).filter(isCliCommand);
  });
}

/** The forms and options of a command, wrapped to the help width. */
function commandHelp(c: CliCommand): string {
  const forms = usageForms(c).flatMap((f) =>
    wrap(`gatehouse ${c.name} ${f.text}`.trim(), WIDTH - 2, '      '),
  );
  const options = (c.options ?? []).flatMap((o) => [
    `  ${o.flags}`,
    ...wrap(o.description, WIDTH - 6, '      ').map((l) => `      ${l.trimStart()}`),
  ]);
  return [
    '',
    'Forms:',
    ...forms.map((l) => `  ${l}`),
    ...(options.length ? ['', 'Options:', ...options] : []),
    '',
    EXIT_HELP,
  ].join('\n');
}

/** Hides secrets in everything the CLI prints, results included: the config's once it is loaded. */
let redact: (text: string) => string = redactUrlPasswords;

async function execute(command: CliCommand, args: string[]): Promise<void> {
  const form = formFor(command, args);
  if (!form)
    throw new UsageError(
      `${command.name} needs one of: ${usageForms(command)
        .map((f) => f.sub)
        .join(', ')} (gatehouse ${command.name} --help)`,
    );
  const missing = missingArguments(form, args);
  if (missing.length)
    throw new UsageError(
      `${[command.name, form.sub].filter(Boolean).join(' ')}: missing ${missing.join(', ')} (gatehouse ${command.name} --help)`,
    );
  const config = loadConfig();
  redact = configRedactor(config);
  let db: ResolvedDatabase | null = null;
  let app: Promise<INestApplicationContext> | null = null;
  const log = (line: string) => process.stderr.write(`${redact(line)}\n`);
  const ctx: CliContext = {
    config,
    log,
    progress: (label, total) => progressOn(process.stderr, label, total),
    database: async () => (db ??= await resolveDatabase(config, log)),
    app: () =>
      (app ??= (async () => {
        const { url } = await ctx.database();
        await runMigrations(url);
        // Loaded only when a command needs it (`--help`, usage errors and `config` stay quick); required, not
        // import()ed: an ES import would load every CommonJS module below it through the slower ESM loader.
        const { cliLogger, createCliContext } = require('./cli/cli.module') as typeof CliModuleFile;
        return createCliContext(config, url, cliLogger(log));
      })()),
    get: async (token) => (await ctx.app()).get(token),
  };
  try {
    const result = await command.run(args, ctx);
    const text = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
    process.stdout.write(`${redact(text)}\n`);
  } finally {
    // Closing the graph ends its pool, Redis and queue connections and timers: nothing keeps the process alive.
    const opened = await (app as Promise<INestApplicationContext> | null)?.catch(() => null);
    await opened?.close();
    await (db as ResolvedDatabase | null)?.embedded?.stop();
  }
}

function program(commands: CliCommand[]): Command {
  const root = new Command('gatehouse')
    .usage('<command> [arguments]')
    .description(
      'Gatehouse operator CLI (also: npx gatehouse <command>). Every command prints its result as JSON on stdout.',
    )
    .configureHelp({ helpWidth: WIDTH, subcommandTerm: (c) => c.name() })
    .helpCommand('help [command]', 'Show the help of a command')
    .helpOption('-h, --help', 'Show this help')
    .addHelpText('after', `\nRun "gatehouse <command> --help" for a command's forms.\n\n${EXIT_HELP}`)
    .showHelpAfterError('(gatehouse --help lists the commands)')
    .exitOverride();
  for (const c of commands)
    root
      .command(c.name)
      .description(c.summary)
      .usage(
        usageForms(c).some((f) => f.sub)
          ? `<${[...new Set(usageForms(c).map((f) => f.sub))].join('|')}> [arguments]`
          : '[arguments]',
      )
      .helpOption('-h, --help', 'Show this help')
      .configureHelp({ helpWidth: WIDTH })
      .addHelpText('after', commandHelp(c))
      .argument('[arguments...]')
      .allowUnknownOption()
      .allowExcessArguments()
      .exitOverride()
      .action(async (_args: string[], _opts: unknown, cmd: Command) => {
        if (cmd.args.includes('--help') || cmd.args.includes('-h')) cmd.help();
        await execute(c, cmd.args);
      });
  return root;
}

async function main(argv: string[]): Promise<number> {
  const commands = findCommands().sort((a, b) => a.name.localeCompare(b.name));
  const root = program(commands);
  if (argv.length === 0) {
    process.stderr.write(`${root.helpInformation()}\n`);
    return EXIT.usage;
  }
  try {
    await root.parseAsync(argv, { from: 'user' });
    // A command that printed its result but did not succeed (a dry run with bad rows) sets process.exitCode.
    return Number(process.exitCode ?? EXIT.ok);
  } catch (e) {
    if (e instanceof CommanderError)
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.help' ? EXIT.ok : EXIT.usage;
    throw e;
  }
}

// `gatehouse --help | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(EXIT.ok);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    const fail = (text: string) => process.stderr.write(`gatehouse: ${redact(text)}\n`);
    if (e instanceof UsageError) {
      fail(e.message);
      process.exit(EXIT.usage);
    }
    if (e instanceof ConfigError) {
      fail(e.message);
      process.exit(EXIT.config);
    }
    if (e instanceof CommandFailed) fail(e.message);
    else fail(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(EXIT.failed);
  },
);
