import { CliCommand, CommandFailed } from '../cli/cli-command';
import { reissueDemoAccess } from './demo.seeder';

/** `gatehouse demo`: a working demo sign-in and test key, with the URLs to use them. */
export const demoCommand: CliCommand = {
  name: 'demo',
  usage: 'demo',
  summary:
    'Print the demo sign-in and a test-mode key again (a new password and a new key: secrets are stored hashed)',
  async run(_args, ctx) {
    const access = await reissueDemoAccess(await ctx.app());
    if (!access)
      throw new CommandFailed('no demo organisation: run "gatehouse seed" (or start the service once) first');
    const base = ctx.config.baseUrl;
    return {
      ...access,
      console: `${ctx.config.appUrl}/console`,
      api: `${base}/v1`,
      docs: ctx.config.docsUrl,
      try: `curl -H "Authorization: Bearer ${access.key}" ${base}/v1/organisation`,
      export: `export KEY=${access.key} SITE=${access.site_id} HOST=${access.host_id}`,
    };
  },
};
