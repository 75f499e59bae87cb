import { configMarkdownTable, redactedConfig } from '../config/config';
import { revertLastMigration, runMigrations } from '../database/database-setup';
import { runSeed } from '../seed/seed-runner';
import { RequestLogRepository } from '../ops/request-log/request-log.repository';
import { toRequestLogResponse } from '../ops/request-log/dto/request-log.response';
import { CliCommand, CommandFailed, flag, UsageError } from './cli-command';

export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: 'migrate [--revert]',
  summary: 'Apply pending migrations (or revert the last one)',
  async run(args, ctx) {
    const db = await ctx.database();
    if (args.includes('--revert')) {
      await revertLastMigration(db.url);
      return { reverted: true };
    }
    return { applied: (await runMigrations(db.url)).applied };
  },
};

export const seedCommand: CliCommand = {
  name: 'seed',
  usage: 'seed [--scale N]',
  summary: 'Generate deterministic demo data of the content and visitor areas (scale 1 = small demo set)',
  options: [
    {
      flags: '--scale N',
      description:
        'Size (default 1). Per unit: 50 campaigns, 500 signatures and the other public resources; one visitor ' +
        'organisation with 10 people, 50 visitors, 100 visits and their events. Shows progress on stderr.',
    },
  ],
  async run(args, ctx) {
    const raw = flag(args, '--scale') ?? '1';
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError('--scale must be a whole number ≥ 1');
    const report = await runSeed(await ctx.app(), {
      scale: Number(raw),
      log: ctx.log,
      progress: ctx.progress,
    });
    return { scale: Number(raw), counts: report.counts };
  },
};

export const supportCommand: CliCommand = {
  name: 'support',
  usage: 'support request <request-id-or-ref>',
  summary: 'Find a request in the request log by Svc-Request-Id (req_…) or public error ref (ERR-…)',
  async run(args, ctx) {
    if (args[0] !== 'request' || !args[1]) throw new UsageError('usage: support request <request-id-or-ref>');
    const rows = await (await ctx.get(RequestLogRepository)).findByIdOrRef(args[1]);
    if (rows.length === 0) throw new CommandFailed(`no request found for ${args[1]}`);
    return { data: rows.map(toRequestLogResponse) };
  },
};

export const configCommand: CliCommand = {
  name: 'config',
  usage: 'config [--markdown]',
  summary: 'Print the effective configuration (secrets hidden), or the README table with --markdown',
  async run(args, ctx) {
    if (args.includes('--markdown')) return configMarkdownTable();
    return redactedConfig(ctx.config);
  },
};
