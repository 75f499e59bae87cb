import type { FastifyRequest } from 'fastify';
import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import type { EntityManager } from 'typeorm';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { Transactions, UnitOfWork } from '../../database/unit-of-work';
import { Actor, AuditService } from '../audit/audit.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import { isPlan, Plan } from '../platform/plans';
import type { Tenant } from '../platform/tenant';
import { OrganisationRow, OrganisationsRepository, SiteRow } from './organisations.repository';
import { SiteResponse, toSiteResponse } from './dto/organisation.response';

export interface SiteInput {
  name: string;
  time_zone: string;
  requires_host_approval?: boolean;
  /** A check-in with a `high` watchlist match waits for approval instead of completing (docs/decisions.md). */
  watchlist_holds_check_in?: boolean;
  gates?: string[];
}

export interface OrganisationInput {
  name: string;
  slug?: string;
  plan: string;
  country: string;
  time_zone: string;
  wallet_currency?: string;
  sites?: SiteInput[];
}

const CURRENCY: Record<string, string> = { GH: 'GHS', NG: 'NGN', KE: 'KES', ZA: 'ZAR', GB: 'GBP', US: 'USD' };

export function isTimeZone(tz: unknown): tz is string {
  if (typeof tz !== 'string' || tz === '') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const slugify = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'org';

/**
 * Organisations and sites. An organisation is one row; its live and test modes are separate partitions of every
 * tenant table. Creating an organisation creates its test-mode sandbox copy at the same time: each site and
 * gate exists once per mode with its own ids (visit types' built-in keys exist in both modes by definition).
 */
@Injectable()
export class OrganisationsService {
  constructor(
    private readonly repo: OrganisationsRepository,
    private readonly tx: Transactions,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  private checkSite(s: SiteInput, at: string): FieldError[] {
    const errors: FieldError[] = [];
    if (typeof s.name !== 'string' || s.name.trim() === '')
      errors.push({ location: `${at}.name`, message: 'is required' });
    if (!isTimeZone(s.time_zone))
      errors.push({ location: `${at}.time_zone`, message: 'must be an IANA time zone such as Africa/Accra' });
    for (const [i, g] of (s.gates ?? []).entries())
      if (typeof g !== 'string' || g.trim() === '')
        errors.push({ location: `${at}.gates.${i}`, message: 'must be a non-empty name' });
    return errors;
  }

  async create(
    input: OrganisationInput,
    actor: Actor,
  ): Promise<{ organisation: OrganisationRow; sites: SiteRow[] }> {
    const errors: FieldError[] = [];
    if (typeof input.name !== 'string' || input.name.trim() === '')
      errors.push({ location: 'name', message: 'is required' });
    if (!isPlan(input.plan))
      errors.push({ location: 'plan', message: 'must be one of free, starter, growth, pro, enterprise' });
    if (typeof input.country !== 'string' || !/^[A-Z]{2}$/.test(input.country))
      errors.push({ location: 'country', message: 'must be an ISO 3166-1 alpha-2 code such as GH' });
    if (!isTimeZone(input.time_zone))
      errors.push({ location: 'time_zone', message: 'must be an IANA time zone such as Africa/Accra' });
    if (input.slug !== undefined && !/^[a-z0-9][a-z0-9-]{0,47}$/.test(input.slug))
      errors.push({ location: 'slug', message: 'must be lowercase letters, digits and hyphens' });
    for (const [i, s] of (input.sites ?? []).entries()) errors.push(...this.checkSite(s, `sites.${i}`));
    if (errors.length) throw ApiError.validation(errors);

    const now = this.clock.now();
    const org = {
      id: newId('org'),
      name: input.name.trim(),
      slug: input.slug ?? slugify(input.name),
      plan: input.plan as Plan,
      country: input.country,
      time_zone: input.time_zone,
      wallet_amount: 0,
      wallet_currency: input.wallet_currency ?? CURRENCY[input.country] ?? 'USD',
      rate_limit_per_minute: null,
      history_days: null,
      audit_days: null,
      ip_allow_list: [] as string[],
      created_at: now,
      updated_at: now,
    };
    return this.tx.run(async (uow) => {
      if ((await this.repo.insertOrganisation(uow.manager, org)) === 'slug_taken')
        throw new ApiError('conflict', `The slug ${org.slug} is already used by another organisation.`, [
          { location: 'slug', message: 'is already used' },
        ]);
      const sites: SiteRow[] = [];
      for (const s of input.sites ?? [])
        sites.push(...(await this.insertSite(uow.manager, org.id, s, [true, false])));
      await this.audit.record(
        {
          organisationId: org.id,
          livemode: null,
          action: 'organisation.created',
          actor,
          data: { plan: org.plan },
        },
        uow.manager,
      );
      return { organisation: { ...org, wallet_amount: '0' }, sites };
    });
  }

  private async insertSite(
    m: EntityManager,
    organisationId: string,
    s: SiteInput,
    modes: boolean[],
  ): Promise<SiteRow[]> {
    const now = this.clock.tick();
    const out: SiteRow[] = [];
    for (const livemode of modes) {
      const row: SiteRow = {
        id: newId('site'),
        organisation_id: organisationId,
        livemode,
        name: s.name.trim(),
        time_zone: s.time_zone,
        requires_host_approval: s.requires_host_approval ?? false,
        watchlist_holds_check_in: s.watchlist_holds_check_in ?? false,
        created_at: now,
        updated_at: now,
        gates: (s.gates ?? []).map((name) => ({ id: newId('gate'), name: name.trim() })),
      };
      await this.repo.insertSite(m, row);
      out.push(row);
    }
    return out;
  }

  /** A site in the given modes (both by default, so the sandbox stays a copy of live). */
  async createSite(organisationId: string, s: SiteInput, modes: boolean[], actor: Actor): Promise<SiteRow[]> {
    const errors = this.checkSite(s, 'site');
    if (errors.length) throw ApiError.validation(errors);
    return this.tx.run(async (uow) => {
      if (!(await this.repo.findOrganisation(organisationId, uow.manager)))
        throw ApiError.notFound('The organisation');
      const rows = await this.insertSite(uow.manager, organisationId, s, modes);
      for (const r of rows)
        await this.audit.record(
          {
            organisationId,
            livemode: r.livemode,
            action: 'site.created',
            actor,
            target: { type: 'site', id: r.id },
          },
          uow.manager,
        );
      return rows;
    });
  }

  /** Turns the site's watchlist hold at check-in on or off (`sites watchlist-hold`); audited as `site.updated`. */
  async setWatchlistHold(
    organisationId: string,
    siteId: string,
    holds: boolean,
    actor: Actor,
  ): Promise<SiteRow> {
    return this.tx.run(async (uow) => {
      const livemode = await this.repo.setWatchlistHold(
        uow.manager,
        organisationId,
        siteId,
        holds,
        this.clock.now(),
      );
      if (livemode === null) throw ApiError.notFound(`Site ${siteId}`);
      await this.audit.record(
        {
          organisationId,
          livemode,
          action: 'site.updated',
          actor,
          target: { type: 'site', id: siteId },
          data: { watchlist_holds_check_in: holds },
        },
        uow.manager,
      );
      return (await this.repo.findSite({ organisationId, livemode }, siteId, uow.manager))!;
    });
  }

  /** The organisation, null when unknown (in the caller's transaction when it passes one). */
  findOrganisation(id: string, uow?: UnitOfWork): Promise<OrganisationRow | null> {
    return this.repo.findOrganisation(id, uow?.manager);
  }

  /** The tenant's site with its gates, null when unknown. */
  findSite(tenant: Tenant, id: string, uow?: UnitOfWork): Promise<SiteRow | null> {
    return this.repo.findSite(tenant, id, uow?.manager);
  }

  /** Ids of the given sites that exist in this tenant (for checking references such as a person's sites). */
  existingSiteIds(tenant: Tenant, ids: string[], uow?: UnitOfWork): Promise<Set<string>> {
    return this.repo.existingSiteIds(tenant, ids, uow?.manager);
  }

  /** GET /v1/sites: the tenant's sites with their gates, oldest first, a keyset page. */
  sitesPage(tenant: Tenant, q: ListQuery): Promise<Page<SiteResponse>> {
    return this.cursors.codec.createdPage(
      'sites',
      tenant,
      q,
      (limit, after) => this.repo.listSites(tenant, limit, after),
      toSiteResponse,
    );
  }

  /** The tenant's first `n` sites with their gates (gates in their order), oldest first. */
  async firstSites(tenant: Tenant, n: number): Promise<SiteRow[]> {
    return (await this.repo.listSites(tenant, n)).slice(0, n);
  }

  /** The organisation with this id or slug, null when there is none (operators name either). */
  findBySlugOrId(ref: string): Promise<OrganisationRow | null> {
    return this.repo.findOrganisationBySlugOrId(ref);
  }

  /** Every site of the tenant, id and name (the staff import resolves names). */
  /** The tenant's sites with their gates, oldest first (up to 100: the console's overview). */
  listSites(tenant: Tenant): Promise<SiteRow[]> {
    return this.repo.listSites(tenant, 100);
  }

  siteNames(tenant: Tenant): Promise<{ id: string; name: string }[]> {
    return this.repo.siteNames(tenant);
  }

  async organisation(id: string): Promise<OrganisationRow> {
    const org = await this.repo.findOrganisation(id);
    if (!org) throw ApiError.notFound('The organisation');
    return org;
  }

  async site(tenant: Tenant, id: string): Promise<SiteRow> {
    const site = await this.repo.findSite(tenant, id);
    if (!site) throw ApiError.notFound('The site');
    return site;
  }

  async update(
    id: string,
    changes: {
      plan?: string;
      rate_limit_per_minute?: number | null;
      history_days?: number | null;
      audit_days?: number | null;
      ip_allow_list?: string[];
    },
    actor: Actor,
    /** The console request that asked (its id and IP go into the audit trail). */
    request?: FastifyRequest,
  ): Promise<OrganisationRow> {
    const errors: FieldError[] = [];
    if (changes.plan !== undefined && !isPlan(changes.plan))
      errors.push({ location: 'plan', message: 'must be one of free, starter, growth, pro, enterprise' });
    for (const [i, cidr] of (changes.ip_allow_list ?? []).entries())
      if (!isCidr(cidr))
        errors.push({ location: `ip_allow_list.${i}`, message: 'must be an IP address or CIDR range' });
    if (errors.length) throw ApiError.validation(errors);
    return this.tx.run(async (uow) => {
      if (!(await this.repo.findOrganisation(id, uow.manager))) throw ApiError.notFound('The organisation');
      await this.repo.updateOrganisation(
        uow.manager,
        id,
        { ...changes, plan: changes.plan as Plan | undefined },
        this.clock.now(),
      );
      await this.audit.record(
        { organisationId: id, livemode: null, action: 'organisation.updated', actor, data: changes, request },
        uow.manager,
      );
      return (await this.repo.findOrganisation(id, uow.manager)) as OrganisationRow;
    });
  }
}

export function isCidr(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const [addr, bits, extra] = v.split('/');
  if (extra !== undefined) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d+$/.test(bits) && n >= 0 && n <= (family === 4 ? 32 : 128);
}
