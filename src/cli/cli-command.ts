import type { INestApplicationContext, Type } from '@nestjs/common';
import type { Config } from '../config/config';
import type { ResolvedDatabase } from '../database/database-setup';
import { ApiError } from '../common/errors/api-error';

/**
 * One operator command of `gatehouse` / `npx gatehouse …`. Commands live in `*.command.ts` files anywhere
 * under src/ and are found by file name (src/cli.ts). A command returns what it prints: an object is printed
 * as JSON on stdout, a string as is. Progress goes to `ctx.log` (stderr). Throw `UsageError` for bad input.
 *
 * `usage` is read by a convention (src/cli/usage.ts): forms separated by ` | `, a form's first bare word its
 * sub-command, `--flag VALUE` and `<arg>` outside `[...]` required. The CLI checks the required ones of the
 * chosen form before `run` and reports all that are missing at once (exit 2), and `--help` prints the forms.
 */
export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  /** Optional: what each option means, listed by `gatehouse <name> --help`. */
  options?: CliOptionHelp[];
  run(args: string[], ctx: CliContext): Promise<unknown>;
}

export interface CliOptionHelp {
  /** As in the usage, e.g. `--scale N`. */
  flags: string;
  description: string;
}

export interface CliContext {
  config: Config;
  /** The database (embedded or DATABASE_URL), started if needed. */
  database(): Promise<ResolvedDatabase>;
  /**
   * The server's object graph without HTTP (src/cli/cli.module.ts) on that database, migrated first: built on first
   * use, closed when the command ends. Commands take services from it (`ctx.get`), never build them with `new`.
   */
  app(): Promise<INestApplicationContext>;
  /** A provider of that graph: `await ctx.get(OrganisationsService)`. */
  get<T>(token: Type<T>): Promise<T>;
  log(line: string): void;
  /** Progress of a long step: a bar on a terminal (stderr), a plain line every 10 % otherwise. */
  progress(label: string, total: number): Progress;
}

export interface Progress {
  /** Adds `n` done units. */
  tick(n?: number): void;
  done(): void;
}

/** The command line is wrong (unknown sub-command, missing or malformed argument): exit code 2. */
export class UsageError extends Error {}

/**
 * Runs a command's work; a domain error (`ApiError`) becomes a usage error: its detail, then one line per field,
 * each named by `field` (the error's location by default, e.g. `body.name`; flag commands name the flag).
 */
export async function domainErrorsAsUsage<T>(
  work: () => Promise<T>,
  field: (location: string) => string = (location) => location,
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    throw new UsageError(
      [e.detail, ...e.errors.map((f) => `${field(f.location)}: ${f.message}`)].join('\n  '),
    );
  }
}

/** The command ran and could not do what was asked (nothing found, refused): its message, exit code 1. */
export class CommandFailed extends Error {}

export function isCliCommand(v: unknown): v is CliCommand {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as CliCommand).run === 'function' &&
    typeof (v as CliCommand).usage === 'string'
  );
}

/** `--name value`; undefined when absent; UsageError when the value is missing. */
export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return v;
}

export function requiredFlag(args: string[], name: string): string {
  const v = flag(args, name);
  if (v === undefined) throw new UsageError(`${name} is required`);
  return v;
}
