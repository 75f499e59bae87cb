#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { parseKey } from '../visitor/api-keys/api-key-format';
import { ApiFailure, ApiTarget } from './api';
import { listEvents, resendEvent } from './events';
import { listen } from './listen';
import { tail } from './logs';
import { Output } from './output';
import { trigger, TRIGGERABLE } from './trigger';

/** Exit codes (README "Integrator CLI"): 0 done or stopped with Ctrl-C, 1 the API or the network failed, 2 usage. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

class UsageError extends Error {}

/**
 * `gatehouse-dev`: the integrator CLI (docs/decisions.md "Integrator CLI"), a separate bin from the operator CLI
 * (`gatehouse`): it runs on an integrator's machine, talks to a running service over /v1 with an API key only, and
 * never touches the database.
 */
function program(): Command {
  const p = new Command('gatehouse-dev')
    .description(
      'Develop against Gatehouse: forward test-mode webhooks locally, trigger events, tail requests',
    )
    .addOption(new Option('--api-key <key>', 'API key (default: $GATEHOUSE_API_KEY)'))
    .addOption(
      new Option('--base-url <url>', 'the service')
        .default('http://localhost:3000')
        .env('GATEHOUSE_BASE_URL'),
    )
    .option('--json', 'one JSON object per line on stdout')
    .showHelpAfterError()
    .exitOverride();

  /**
   * The target and output of a command. `testOnly` names a command that works on test-mode data only (listen,
   * trigger, logs tail): a live key is refused before any call, so nothing is created in live mode.
   */
  const ctx = (cmd: Command, testOnly?: string): { target: ApiTarget; out: Output } => {
    const o = cmd.optsWithGlobals<{ apiKey?: string; baseUrl: string; json?: boolean }>();
    const apiKey = o.apiKey ?? process.env.GATEHOUSE_API_KEY;
    if (!apiKey) throw new UsageError('an API key is needed: set GATEHOUSE_API_KEY or pass --api-key');
    if (testOnly && parseKey(apiKey)?.livemode)
      throw new UsageError(
        `${testOnly} works in test mode only and this API key is live; use a test-mode key (svc_sk_test_…)`,
      );
    try {
      new URL(o.baseUrl);
    } catch {
      throw new UsageError(`--base-url is not a URL: ${o.baseUrl}`);
    }
    return { target: { apiKey, baseUrl: o.baseUrl }, out: new Output(o.json === true) };
  };

  /** Until Ctrl-C or SIGTERM. */
  const untilStopped = (): AbortSignal => {
    const stop = new AbortController();
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => stop.abort());
    return stop.signal;
  };

  p.command('listen')
    .description("forward the organisation's test-mode events, signed, to a local URL as they happen")
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4000/webhooks')
    .option('--events <types>', 'only these event types (comma-separated)')
    .action(async (o: { forwardTo: string; events?: string }, cmd: Command) => {
      const { target, out } = ctx(cmd, 'listen');
      if (!/^https?:\/\//.test(o.forwardTo))
        throw new UsageError(`--forward-to is not an http(s) URL: ${o.forwardTo}`);
      await listen(
        target,
        o.forwardTo,
        o.events ? o.events.split(',').map((t) => t.trim()) : null,
        out,
        untilStopped(),
      );
    });

  p.command('trigger')
    .description('create the test-mode objects that emit an event')
    .argument('<event-type>', `one of: ${TRIGGERABLE.join(', ')}`)
    .action(async (type: string, _o: unknown, cmd: Command) => {
      const { target, out } = ctx(cmd, 'trigger');
      if (!TRIGGERABLE.includes(type))
        throw new UsageError(`cannot trigger ${type}; triggerable event types: ${TRIGGERABLE.join(', ')}`);
      await trigger(target, type, out);
    });

  const events = p.command('events').description('the organisation’s recorded events');
  events
    .command('list')
    .description('the newest events of the last 30 days')
    .option('--type <type>', 'only this event type')
    .option('--limit <n>', 'how many (1 to 100)', '25')
    .action(async (o: { type?: string; limit?: string }, cmd: Command) => {
      const { target, out } = ctx(cmd);
      await listEvents(target, o, out);
    });
  events
    .command('resend')
    .description("replay a stored event to the organisation's webhook endpoints")
    .argument('<evt_id>')
    .option('--endpoint <whep_id>', 'only this endpoint')
    .action(async (id: string, o: { endpoint?: string }, cmd: Command) => {
      const { target, out } = ctx(cmd);
      await resendEvent(target, id, o.endpoint, out);
    });

  p.command('logs')
    .description('the organisation’s requests')
    .command('tail')
    .description("the organisation's test-mode requests as they happen")
    .action(async (_o: unknown, cmd: Command) => {
      const { target, out } = ctx(cmd, 'logs tail');
      await tail(target, out, untilStopped());
    });
  for (const c of [p, ...p.commands, ...p.commands.flatMap((c) => c.commands)]) c.exitOverride();
  return p;
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const out = new Output(json);
  try {
    await program().parseAsync(argv);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError)
      return e.exitCode === 0 || e.code === 'commander.helpDisplayed' ? EXIT.ok : EXIT.usage;
    if (e instanceof UsageError) {
      out.fail('usage', e.message);
      return EXIT.usage;
    }
    if (e instanceof ApiFailure) {
      out.fail(e.code, e.message);
      return EXIT.failed;
    }
    // fetch's own message is only "fetch failed"; the reason is its cause (ECONNREFUSED, bad port, …).
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message;
    out.fail('failed', why ? `${(e as Error).message} (${why})` : (e as Error).message);
    return EXIT.failed;
  }
}

void main(process.argv).then((code) => process.exit(code));
