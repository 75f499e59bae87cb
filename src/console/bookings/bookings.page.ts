import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { ApiValidationPipe } from '../../common/errors/validation.pipe';
import { CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { BookingTypesService } from '../../visitor/booking-types/booking-types.service';
import { BOOKING_STATUSES, BOOKING_TRANSITIONS } from '../../visitor/bookings/booking-state-machine';
import { BookingsService } from '../../visitor/bookings/bookings.service';
import { BookingsQuery, DeclineBookingBody } from '../../visitor/bookings/dto/booking.request';
import type { BookingResponse } from '../../visitor/bookings/dto/booking.response';
import { localWhen } from '../../visitor/messages/local-time';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { roleAllows } from '../../visitor/platform/scopes';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import { auditChange, bookingsFlash, failedBookingAction, modeOf, tenantOf } from './bookings-console';

const PATH = '/console/bookings';
const PAGE_SIZE = 25;

/** Who confirms and declines: the page's roles that the API's role rules give `bookings:write`. */
const DECIDERS = consoleRoles(PATH).filter((r) => roleAllows(r, 'bookings:write'));

export const BOOKING_STATUS_WORDS: Record<string, string> = {
  pending: 'Pending',
  confirmed: 'Confirmed',
  declined: 'Declined',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/**
 * The list's filters an action carries in its URL, so the list comes back as it was (kept only when well formed;
 * the list checks them again).
 */
function keptFilters(q: Record<string, string | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  if ((BOOKING_STATUSES as readonly string[]).includes(str(q.status))) kept.status = str(q.status);
  if (/^btype_[0-9A-Za-z]{1,40}$/.test(str(q.type))) kept.type = str(q.type);
  return kept;
}

/** `path` with the mode and the kept filters (and `extra`, e.g. the notice) as its query. */
const withQuery = (
  path: string,
  mode: string,
  filters: Record<string, string>,
  extra: Record<string, string> = {},
) => `${path}?${new URLSearchParams({ mode, ...filters, ...extra }).toString()}`;

/**
 * Bookings in the console (`/console/bookings`, issue 31 page 5), in the console's mode: the list filtered by
 * status and booking type, paged by cursor, slots in their site's time zone; pending bookings confirmed (a visit is
 * created) or declined (with a reason, shared with the attendee or not) through BookingsService, the same
 * transitions, checks and events as `/v1/bookings/{id}/confirm|decline`. Every change is audited.
 */
@ApiExcludeController()
@Controller('console/bookings')
@ConsoleAuth(...consoleRoles(PATH))
export class ConsoleBookingsPageController {
  constructor(
    private readonly bookings: BookingsService,
    private readonly types: BookingTypesService,
    private readonly organisations: OrganisationsService,
    private readonly audit: AuditService,
  ) {}

  @Get()
  @ConsolePage('console-bookings')
  async list(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
  ) {
    const tenant = tenantOf(t);
    const mode = modeOf(t);
    const [sites, types] = await Promise.all([
      this.organisations.listSites(tenant),
      this.types.page(tenant, false, { limit: 100 }),
    ]);
    const filters = { status: str(query.status), type: str(query.type) };
    const errors: string[] = [];
    const q: BookingsQuery = { limit: PAGE_SIZE };
    if (filters.status) {
      if ((BOOKING_STATUSES as readonly string[]).includes(filters.status))
        q.status = filters.status as BookingsQuery['status'];
      else errors.push('Status: choose one of the list.');
    }
    if (filters.type) {
      // Any well-formed id (the select offers the first 100 types; an unknown one simply matches nothing).
      if (keptFilters(filters).type) q.booking_type_id = filters.type;
      else errors.push('Booking type: choose one of the list.');
    }
    if (str(query.cursor)) q.cursor = str(query.cursor);
    const base = {
      title: 'Bookings',
      csrf,
      mode,
      filters,
      statuses: BOOKING_STATUSES.map((s) => ({ value: s, words: BOOKING_STATUS_WORDS[s] })),
      types: types.data.map((x) => ({ id: x.id, name: x.name })),
      typesLink: `${PATH}/types?mode=${mode}`,
      ...bookingsFlash(query),
    };
    const refused = (message: string) => ({
      ...base,
      rows: [],
      pager: null,
      error: { message, requestId: String(req.id) },
    });
    if (errors.length) return refused(errors.join(' '));
    let page;
    try {
      page = await this.bookings.page(tenant, q);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'validation_failed') throw e;
      return refused('This page link is out of date (the filters changed); start again from the first page.');
    }
    const siteOf = new Map(sites.map((s) => [s.id, s]));
    const typeNames = new Map(types.data.map((x) => [x.id, x.name]));
    const decides = DECIDERS.includes(a.role);
    return {
      ...base,
      rows: page.data.map((b) => this.row(b, siteOf, typeNames, mode, decides, keptFilters(query))),
      pager: pagerLinks(PATH, { ...query, mode }, page),
    };
  }

  private row(
    b: BookingResponse,
    siteOf: Map<string, { name: string; time_zone: string }>,
    typeNames: Map<string, string>,
    mode: string,
    decides: boolean,
    filters: Record<string, string>,
  ) {
    const site = siteOf.get(b.site_id);
    const zone = site?.time_zone ?? 'UTC';
    const pending = BOOKING_TRANSITIONS.confirm.from.includes(b.status as never);
    return {
      id: b.id,
      attendee: b.attendee.name ?? '(erased)',
      contact: [b.attendee.phone, b.attendee.email].filter(Boolean).join(', '),
      company: b.attendee.company,
      type: typeNames.get(b.booking_type_id) ?? b.booking_type_id,
      site: site?.name ?? b.site_id,
      slot: `${localWhen(new Date(b.start), zone)} – ${localWhen(new Date(b.end), zone).split(', ').at(-1)}`,
      zone,
      status: b.status,
      statusWords: BOOKING_STATUS_WORDS[b.status] ?? b.status,
      confirmBy: b.confirm_by && b.status === 'pending' ? when(b.confirm_by) : null,
      declineReason: b.decline_reason,
      shared: b.share_reason_with_attendee,
      visit: b.visit_id ? `/console/visits/${b.visit_id}?mode=${mode}` : null,
      created: when(b.created_at),
      confirm: decides && pending ? withQuery(`${PATH}/${b.id}/confirm`, mode, filters) : null,
      decline:
        decides && BOOKING_TRANSITIONS.decline.from.includes(b.status as never)
          ? withQuery(`${PATH}/${b.id}/decline`, mode, filters)
          : null,
    };
  }

  @Post(':booking_id/confirm')
  @ConsoleAuth(...DECIDERS)
  @PostedForm()
  async confirm(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('booking_id') id: string,
    @Query() query: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
  ) {
    const filters = keptFilters(query);
    try {
      const b = await this.bookings.act(tenantOf(t), id, 'confirm');
      await auditChange(
        this.audit,
        req,
        a,
        t,
        'booking.confirmed',
        { type: 'booking', id: b.id },
        { visit_id: b.visit_id },
      );
      return { url: withQuery(PATH, modeOf(t), filters, { notice: 'confirmed' }), statusCode: 303 };
    } catch (e) {
      return failedBookingAction(req, e, withQuery(PATH, modeOf(t), filters));
    }
  }

  /** The decline step (works without JavaScript): the reason and whether the attendee is told it. */
  @Get(':booking_id/decline')
  @ConsoleAuth(...DECIDERS)
  @ConsolePage('console-booking-decline')
  async declineForm(
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('booking_id') id: string,
    @Query() query: Record<string, string | undefined>,
  ) {
    const b = await this.bookings.get(tenantOf(t), id);
    const mode = modeOf(t);
    const [site, type] = await Promise.all([
      this.organisations.findSite(tenantOf(t), b.site_id),
      this.types.get(tenantOf(t), b.booking_type_id),
    ]);
    const zone = site?.time_zone ?? 'UTC';
    return {
      title: `Decline the booking of ${b.attendee.name ?? '(erased attendee)'}?`,
      csrf,
      booking: {
        id: b.id,
        type: type.name,
        slot: `${localWhen(new Date(b.start), zone)} (${zone})`,
        status: b.status,
        statusWords: BOOKING_STATUS_WORDS[b.status] ?? b.status,
        pending: BOOKING_TRANSITIONS.decline.from.includes(b.status as never),
      },
      action: withQuery(`${PATH}/${b.id}/decline`, mode, keptFilters(query)),
      cancel: withQuery(PATH, mode, keptFilters(query)),
      ...bookingsFlash(query),
    };
  }

  @Post(':booking_id/decline')
  @ConsoleAuth(...DECIDERS)
  @PostedForm()
  async decline(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('booking_id') id: string,
    @Body() form: Record<string, string | undefined>,
    @Query() query: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
  ) {
    const mode = modeOf(t);
    const filters = keptFilters(query);
    try {
      // The body /v1/bookings/{id}/decline takes, checked by the same rules.
      const body = (await new ApiValidationPipe().transform(
        {
          ...(str(form.reason) ? { reason: str(form.reason) } : {}),
          share_reason_with_attendee: form.share === 'on',
        },
        { type: 'body', metatype: DeclineBookingBody },
      )) as DeclineBookingBody;
      const b = await this.bookings.act(tenantOf(t), id, 'decline', {
        reason: body.reason,
        share: body.share_reason_with_attendee,
      });
      await auditChange(
        this.audit,
        req,
        a,
        t,
        'booking.declined',
        { type: 'booking', id: b.id },
        {
          reason: b.decline_reason,
          share_reason_with_attendee: b.share_reason_with_attendee,
        },
      );
      return { url: withQuery(PATH, mode, filters, { notice: 'declined' }), statusCode: 303 };
    } catch (e) {
      return failedBookingAction(
        req,
        e,
        withQuery(`${PATH}/${encodeURIComponent(id)}/decline`, mode, filters),
      );
    }
  }
}
