import { CliCommand, requiredFlag, UsageError } from '../cli/cli-command';
import type { Actor } from './audit/audit.service';
import { SandboxReset } from './test-helpers/sandbox-reset.service';
import { organisationId } from './visitor.command';

const OPERATOR: Actor = { type: 'operator', id: 'cli' };

/** `gatehouse sandbox reset --org <org>`: POST /v1/test-helpers/sandbox/reset for operators (and the console's button). */
export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  usage: 'sandbox reset --org <org>',
  summary:
    "Delete an organisation's test-mode data (visits, bookings, events, messages, …); live data untouched",
  options: [
    {
      flags: '--org <org>',
      description:
        'org_… id or slug. Deletes the test-mode activity in one transaction and keeps configuration (sites, people, types, forms, shifts, keys, webhook endpoints, watchlist entries) and the audit trail; audited as sandbox.reset',
    },
  ],
  async run(args, ctx) {
    if (args[0] !== 'reset') throw new UsageError(`usage: gatehouse ${this.usage}`);
    const org = await organisationId(ctx, requiredFlag(args, '--org'));
    return (await ctx.get(SandboxReset)).reset(org, OPERATOR);
  },
};
