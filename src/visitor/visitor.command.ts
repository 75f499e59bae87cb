import type { INestApplicationContext } from '@nestjs/common';
import {
  CliCommand,
  CliContext,
  flag,
  requiredFlag,
  UsageError,
  domainErrorsAsUsage,
} from '../cli/cli-command';
import { AccountsService } from './accounts/accounts.service';
import { OrganisationsRepository } from './organisations/organisations.repository';
import { OrganisationsService } from './organisations/organisations.service';
import { toOrganisationResponse, toSiteResponse } from './organisations/dto/organisation.response';
import { ApiKeysService, toApiKeyResponse } from './api-keys/api-keys.service';
import type { Actor } from './audit/audit.service';

const OPERATOR: Actor = { type: 'operator', id: 'cli' };

/** The platform services of the application's object graph (the CLI's, a seeder's, a bench's). */
export function platformServices(app: Pick<INestApplicationContext, 'get'>) {
  return {
    orgRepo: app.get(OrganisationsRepository),
    orgs: app.get(OrganisationsService),
    keys: app.get(ApiKeysService),
    accounts: app.get(AccountsService),
  };
}

/** Domain errors become usage errors naming the flag (`body.name` → `--name`). */
const cli = <T>(work: () => Promise<T>): Promise<T> =>
  domainErrorsAsUsage(work, (location) => `--${location.replace(/^body\./, '').replace(/_/g, '-')}`);

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `org_…` or a slug → the organisation's id; a usage error naming the reference when there is none. */
export async function organisationId(ctx: CliContext, ref: string): Promise<string> {
  const org = await (await ctx.get(OrganisationsRepository)).findOrganisationBySlugOrId(ref);
  if (!org) throw new UsageError(`no organisation ${ref} (give its org_… id or slug)`);
  return org.id;
}

export const orgCommand: CliCommand = {
  name: 'org',
  usage:
    'org create --name N --plan P --country CC --time-zone TZ [--slug S] [--site NAME --gates "A,B"] | org list | org update <org> [--plan P] [--rate-limit N] [--ip-allow-list "cidr,…"] [--history-days N] [--audit-days N] | org custom-scope <org> --name custom:x --grants "visits:read,…" [--description D]',
  summary: 'Create, list and change organisations (creating one creates its test-mode sandbox copy)',
  async run(args, ctx) {
    const s = platformServices(await ctx.app());
    const [sub, ref] = args;
    if (sub === 'create') {
      const site = flag(args, '--site');
      const created = await cli(() =>
        s.orgs.create(
          {
            name: requiredFlag(args, '--name'),
            slug: flag(args, '--slug'),
            plan: requiredFlag(args, '--plan'),
            country: requiredFlag(args, '--country'),
            time_zone: requiredFlag(args, '--time-zone'),
            sites: site
              ? [
                  {
                    name: site,
                    time_zone: flag(args, '--time-zone') as string,
                    gates: list(flag(args, '--gates')),
                  },
                ]
              : [],
          },
          OPERATOR,
        ),
      );
      return {
        organisation: toOrganisationResponse(created.organisation, true),
        sites: created.sites.map((r) => ({ ...toSiteResponse(r), livemode: r.livemode })),
      };
    }
    if (sub === 'list')
      return { data: (await s.orgRepo.listOrganisations()).map((o) => toOrganisationResponse(o, true)) };
    if (sub === 'update' && ref) {
      const num = (name: string) => {
        const v = flag(args, name);
        if (v === undefined) return undefined;
        if (v === 'none') return null;
        if (!/^\d+$/.test(v)) throw new UsageError(`${name} must be a whole number or "none"`);
        return Number(v);
      };
      const ipList = flag(args, '--ip-allow-list');
      const org = await cli(async () =>
        s.orgs.update(
          await organisationId(ctx, ref),
          {
            plan: flag(args, '--plan'),
            rate_limit_per_minute: num('--rate-limit'),
            history_days: num('--history-days'),
            audit_days: num('--audit-days'),
            ip_allow_list: ipList === undefined ? undefined : list(ipList),
          },
          OPERATOR,
        ),
      );
      return {
        ...toOrganisationResponse(org, true),
        ip_allow_list: org.ip_allow_list,
        rate_limit_per_minute: org.rate_limit_per_minute,
      };
    }
    if (sub === 'custom-scope' && ref) {
      const id = await organisationId(ctx, ref);
      return cli(() =>
        s.keys.defineCustomScope(
          id,
          {
            name: requiredFlag(args, '--name'),
            grants: list(requiredFlag(args, '--grants')),
            description: flag(args, '--description'),
          },
          OPERATOR,
        ),
      );
    }
    throw new UsageError(`usage: gatehouse ${this.usage}`);
  },
};

export const keysCommand: CliCommand = {
  name: 'keys',
  usage:
    'keys create --org <org> --name N --kind secret|publishable --mode live|test --scopes "a,b" [--expires-at 2027-01-31T00:00:00Z] | keys list --org <org> | keys revoke --org <org> <key_id>',
  summary: 'Create (prints the key once), list and revoke API keys',
  async run(args, ctx) {
    const s = platformServices(await ctx.app());
    const org = await organisationId(ctx, requiredFlag(args, '--org'));
    if (args[0] === 'create')
      return cli(() =>
        s.keys.create(
          org,
          {
            name: requiredFlag(args, '--name'),
            kind: requiredFlag(args, '--kind'),
            mode: requiredFlag(args, '--mode'),
            scopes: list(requiredFlag(args, '--scopes')),
            expires_at: flag(args, '--expires-at'),
          },
          OPERATOR,
        ),
      );
    if (args[0] === 'list') return { data: (await s.keys.list(org, 1000)).map(toApiKeyResponse) };
    if (args[0] === 'revoke') {
      const id = args.find((a) => a.startsWith('key_'));
      if (!id) throw new UsageError('give the key_… id to revoke');
      return cli(() => s.keys.revoke(org, id, OPERATOR));
    }
    throw new UsageError(`usage: gatehouse ${this.usage}`);
  },
};

export const sitesCommand: CliCommand = {
  name: 'sites',
  usage:
    'sites create --org <org> --name N --time-zone TZ [--gates "A,B"] [--mode live|test|both] [--requires-host-approval] [--watchlist-holds-check-in] | sites watchlist-hold <site_id> --org <org> --holds on|off',
  summary:
    'Create a site with its gates (in both modes by default, keeping the sandbox a copy of live); turn its watchlist hold at check-in on or off',
  async run(args, ctx) {
    if (args[0] !== 'create' && args[0] !== 'watchlist-hold')
      throw new UsageError(`usage: gatehouse ${this.usage}`);
    const s = platformServices(await ctx.app());
    const org = await organisationId(ctx, requiredFlag(args, '--org'));
    if (args[0] === 'watchlist-hold') {
      const holds = requiredFlag(args, '--holds');
      if (holds !== 'on' && holds !== 'off') throw new UsageError('--holds must be on or off');
      const site = args[1];
      if (!site || site.startsWith('--')) throw new UsageError(`usage: gatehouse ${this.usage}`);
      const row = await cli(() => s.orgs.setWatchlistHold(org, site, holds === 'on', OPERATOR));
      return {
        ...toSiteResponse(row),
        livemode: row.livemode,
        watchlist_holds_check_in: row.watchlist_holds_check_in,
      };
    }
    const mode = flag(args, '--mode') ?? 'both';
    if (!['live', 'test', 'both'].includes(mode)) throw new UsageError('--mode must be live, test or both');
    const rows = await cli(() =>
      s.orgs.createSite(
        org,
        {
          name: requiredFlag(args, '--name'),
          time_zone: requiredFlag(args, '--time-zone'),
          gates: list(flag(args, '--gates')),
          requires_host_approval: args.includes('--requires-host-approval'),
          watchlist_holds_check_in: args.includes('--watchlist-holds-check-in'),
        },
        mode === 'both' ? [true, false] : [mode === 'live'],
        OPERATOR,
      ),
    );
    return { data: rows.map((r) => ({ ...toSiteResponse(r), livemode: r.livemode })) };
  },
};

export const accountsCommand: CliCommand = {
  name: 'accounts',
  usage: 'accounts create --org <org> --email E --name N --role owner|admin|member|support --password P',
  summary: 'Create a console account (the password is stored as an argon2id hash)',
  async run(args, ctx) {
    if (args[0] !== 'create') throw new UsageError(`usage: gatehouse ${this.usage}`);
    const s = platformServices(await ctx.app());
    const org = await organisationId(ctx, requiredFlag(args, '--org'));
    const a = await cli(() =>
      s.accounts.create(
        org,
        {
          email: requiredFlag(args, '--email'),
          name: requiredFlag(args, '--name'),
          role: requiredFlag(args, '--role'),
          password: requiredFlag(args, '--password'),
        },
        OPERATOR,
      ),
    );
    return { id: a.id, organisation_id: a.organisation_id, email: a.email, name: a.name, role: a.role };
  },
};
