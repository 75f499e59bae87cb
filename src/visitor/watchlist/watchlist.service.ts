import { Injectable } from '@nestjs/common';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, UnitOfWork } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import type { CreateWatchlistEntryBody, WatchlistQuery } from './dto/watchlist.request';
import {
  RecentMatchResponse,
  toMatchResponse,
  toWatchlistEntryResponse,
  VisitWatchlistResponse,
  WatchlistEntryResponse,
} from './dto/watchlist.response';
import { Screened, WatchlistMatchRow, WatchlistRepository } from './watchlist.repository';

/** What ran a screening: the event or action of the visit. */
export type ScreeningTrigger = 'visit.created' | 'visit.updated' | 'visit.check_in';

/**
 * The watchlist: entries (add, list, get, remove) and the screening of visits, which visits call in their own
 * transaction when a visit is created or changed and at check-in. A new match is stored, flags the visit and
 * records `watchlist.matched` (delivered only to webhook endpoints that list it).
 */
@Injectable()
export class WatchlistService {
  constructor(
    private readonly repo: WatchlistRepository,
    private readonly orgs: OrganisationsService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** E.164 of `phone`, read as a national number of the organisation's country unless it starts with `+`. */
  private async e164(tenant: Tenant, phone: string): Promise<string> {
    const org = await this.orgs.findOrganisation(tenant.organisationId);
    const parsed = parsePhoneNumberFromString(phone, (org?.country ?? 'GH') as CountryCode);
    if (!parsed?.isValid())
      throw ApiError.validation([
        {
          location: 'body.phone',
          message: `must be a valid phone number, in E.164 or a national number of ${org?.country ?? 'the organisation'}`,
        },
      ]);
    return parsed.number;
  }

  async add(
    tenant: Tenant,
    createdBy: string,
    input: CreateWatchlistEntryBody,
  ): Promise<WatchlistEntryResponse> {
    const phone = input.phone ? await this.e164(tenant, input.phone) : null;
    const now = this.clock.now();
    const row = {
      id: newId('watch'),
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      name: input.name.trim(),
      aliases: [...new Set((input.aliases ?? []).map((a) => a.trim()))],
      phone,
      email: input.email?.trim() ?? null,
      company: input.company ?? null,
      reason: input.reason,
      severity: input.severity,
      expires_at: input.expires_at ? new Date(input.expires_at) : null,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
    };
    return this.tx.run(async (uow) => {
      await this.repo.insert(uow.manager, row);
      return toWatchlistEntryResponse(row, now);
    }, IS_RESPONSE);
  }

  async get(tenant: Tenant, id: string): Promise<WatchlistEntryResponse> {
    const row = await this.repo.find(tenant, id);
    if (!row) throw ApiError.notFound(`Watchlist entry ${id}`);
    return toWatchlistEntryResponse(row, this.clock.now());
  }

  async remove(tenant: Tenant, id: string): Promise<void> {
    if (!(await this.repo.delete(tenant, id))) throw ApiError.notFound(`Watchlist entry ${id}`);
  }

  page(tenant: Tenant, q: WatchlistQuery): Promise<Page<WatchlistEntryResponse>> {
    const now = this.clock.now();
    return this.cursors.codec.createdPage(
      'watchlist',
      tenant,
      q,
      (limit, after) => this.repo.list(tenant, limit + 1, after),
      (r) => toWatchlistEntryResponse(r, now),
    );
  }

  /**
   * The tenant's matches, newest first, with their explanation and the entry's name (null once removed); never the
   * compared values. A cursor list like the others (list name `watchlist_matches`).
   */
  recentMatches(tenant: Tenant, q: ListQuery): Promise<Page<RecentMatchResponse>> {
    return this.cursors.codec.createdPage(
      'watchlist_matches',
      tenant,
      q,
      (limit, before) => this.repo.recentMatches(tenant, limit + 1, before),
      (m) => ({ ...toMatchResponse(m), entry_name: m.entry_name }),
    );
  }

  /**
   * Screens a visit's visitor in the caller's transaction. New matches are stored and each records
   * `watchlist.matched`. Returns the visit's flag rebuilt from all its matches (the caller, the visits domain,
   * stores it on the visit), or null when nothing new matched (the visit keeps the flag it had).
   */
  async screen(
    uow: UnitOfWork,
    tenant: Tenant,
    visit: Screened,
    trigger: ScreeningTrigger,
  ): Promise<VisitWatchlistResponse | null> {
    const matches: WatchlistMatchRow[] = await this.repo.screen(
      uow.manager,
      tenant,
      visit,
      trigger,
      this.clock.now(),
    );
    if (matches.length === 0) return null;
    for (const m of matches) await this.events.record(uow, tenant, 'watchlist.matched', toMatchResponse(m));
    return (await this.repo.flag(uow.manager, tenant, visit.visitId)) as VisitWatchlistResponse;
  }
}
