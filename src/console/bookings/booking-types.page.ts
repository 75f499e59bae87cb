import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { BookingTypesService } from '../../visitor/booking-types/booking-types.service';
import type { BookingTypeResponse } from '../../visitor/booking-types/dto/booking-type.response';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PeopleService } from '../../visitor/people/people.service';
import { VisitTypesService } from '../../visitor/visit-types/visit-types.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import {
  BOOKING_TYPE_EDITORS,
  blankValues,
  BookingTypeValues,
  bodyOf,
  FormBody,
  postedValues,
  problemsOf,
  valuesOf,
  weekdayFields,
} from './booking-type-form';
import { auditChange, bookingsFlash, failedBookingAction, modeOf, tenantOf } from './bookings-console';

const PATH = '/console/bookings/types';
const PAGE_SIZE = 25;

/**
 * Booking types in the console (`/console/bookings/types`, issue 31 page 5), in the console's mode: the list
 * (cursor pages) for everyone the page is for; Owners and Admins add a type, edit one and publish it or take it
 * back. Every change goes through BookingTypesService (the checks of `/console/booking-types` and the CLI) and is
 * audited with its request id.
 */
@ApiExcludeController()
@Controller('console/bookings/types')
@ConsoleAuth(...consoleRoles('/console/bookings'))
export class ConsoleBookingTypesPageController {
  constructor(
    private readonly types: BookingTypesService,
    private readonly organisations: OrganisationsService,
    private readonly people: PeopleService,
    private readonly visitTypes: VisitTypesService,
    private readonly audit: AuditService,
  ) {}

  /** What the form offers: the mode's sites, hosts (people who can host, up to 100) and visit types turned on. */
  private async choices(t: ConsoleTenantOf, values: BookingTypeValues) {
    const tenant = tenantOf(t);
    const [sites, hosts, visitTypes] = await Promise.all([
      this.organisations.listSites(tenant),
      this.people.list(tenant, { canHost: true, limit: 100 }),
      this.visitTypes.list(tenant),
    ]);
    return {
      values,
      weekdays: weekdayFields(values),
      sites: sites.map((s) => ({ id: s.id, name: s.name, timeZone: s.time_zone })),
      hosts: hosts.data
        .filter((h) => h.active)
        .map((h) => ({ id: h.id, name: h.name, checked: values.hosts.includes(h.id) })),
      visitTypes: visitTypes
        .filter((v) => v.enabled || v.key === values.visit_type)
        .map((v) => ({ key: v.key, name: v.name })),
    };
  }

  private async listData(a: ConsoleCaller, t: ConsoleTenantOf, q: Record<string, unknown>) {
    const mode = modeOf(t);
    const cursor = typeof q.cursor === 'string' && q.cursor ? q.cursor : undefined;
    const [page, sites] = await Promise.all([
      this.types.page(tenantOf(t), false, { limit: PAGE_SIZE, cursor }),
      this.organisations.listSites(tenantOf(t)),
    ]);
    const siteNames = new Map(sites.map((s) => [s.id, s.name]));
    const edits = BOOKING_TYPE_EDITORS.includes(a.role);
    return {
      mode,
      edits,
      rows: page.data.map((x) => ({
        id: x.id,
        name: x.name,
        href: edits ? `${PATH}/${x.id}?mode=${mode}` : null,
        site: siteNames.get(x.site_id) ?? x.site_id,
        timeZone: x.availability.time_zone,
        visitType: x.visit_type,
        duration: x.duration_minutes,
        capacity: x.capacity,
        confirmation: x.requires_confirmation
          ? `Confirmed by hand within ${x.confirmation_window_hours} h`
          : 'Confirmed at once',
        public: x.public,
        publicQuestions: x.public_form ? Object.keys(x.public_form.schema.properties ?? {}).length : null,
        active: x.active,
        publish: edits ? `${PATH}/${x.id}/publish?mode=${mode}` : null,
        updated: when(x.updated_at),
      })),
      pager: pagerLinks(PATH, { ...q, mode }, page),
    };
  }

  @Get()
  @ConsolePage('console-booking-types')
  async list(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() q: Record<string, string | undefined>,
    @Req() req: FastifyRequest,
  ) {
    const base = {
      title: 'Booking types',
      csrf,
      errors: [] as string[],
      ...(await this.choices(t, blankValues())),
      ...bookingsFlash(q),
    };
    try {
      return { ...base, ...(await this.listData(a, t, q)) };
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'validation_failed') throw e;
      return {
        ...base,
        ...(await this.listData(a, t, {})),
        error: {
          message: 'This page link is out of date; this is the first page again.',
          requestId: String(req.id),
        },
      };
    }
  }

  /** Adds a type in the console's mode; problems re-render the page with the form as it was typed. */
  @Post()
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @ConsolePage('console-booking-types')
  @CheckCsrf()
  async create(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() body: FormBody,
    @Req() req: FastifyRequest,
  ) {
    const values = postedValues(body);
    try {
      const saved = await this.types.save(tenantOf(t), null, await bodyOf(values, false));
      await auditChange(
        this.audit,
        req,
        a,
        t,
        'booking_type.created',
        { type: 'booking_type', id: saved.id },
        { name: saved.name },
      );
      return {
        title: 'Booking types',
        csrf,
        errors: [],
        notice: `Booking type ${saved.name} added (not published).`,
        ...(await this.choices(t, blankValues())),
        ...(await this.listData(a, t, {})),
      };
    } catch (e) {
      const problems = problemsOf(e);
      if (!problems) throw e;
      req.ctx.errorCode = (e as ApiError).code;
      return {
        title: 'Booking types',
        csrf,
        errors: problems,
        error: { message: 'The booking type was not added.', requestId: String(req.id) },
        ...(await this.choices(t, values)),
        ...(await this.listData(a, t, {})),
      };
    }
  }

  @Get(':btype_id')
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @ConsolePage('console-booking-type')
  async edit(@ConsoleTenant() t: ConsoleTenantOf, @CsrfToken() csrf: string, @Param('btype_id') id: string) {
    const type = await this.types.get(tenantOf(t), id);
    return this.editData(t, csrf, type, valuesOf(type), {});
  }

  private async editData(
    t: ConsoleTenantOf,
    csrf: string,
    type: BookingTypeResponse,
    values: BookingTypeValues,
    extra: Record<string, unknown>,
  ) {
    const mode = modeOf(t);
    return {
      title: `Booking type ${type.name}`,
      csrf,
      mode,
      type: {
        id: type.id,
        public: type.public,
        action: `${PATH}/${type.id}?mode=${mode}`,
        publish: `${PATH}/${type.id}/publish?mode=${mode}`,
        back: `${PATH}?mode=${mode}`,
      },
      errors: [] as string[],
      notice: null as string | null,
      ...(await this.choices(t, values)),
      ...extra,
    };
  }

  /** Saves the edited type (its published state is kept); problems re-render the form as it was typed. */
  @Post(':btype_id')
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @ConsolePage('console-booking-type')
  @CheckCsrf()
  async save(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Param('btype_id') id: string,
    @Body() body: FormBody,
    @Req() req: FastifyRequest,
  ) {
    const current = await this.types.get(tenantOf(t), id);
    const values = postedValues(body);
    try {
      const saved = await this.types.save(tenantOf(t), id, await bodyOf(values, current.public));
      await auditChange(
        this.audit,
        req,
        a,
        t,
        'booking_type.saved',
        { type: 'booking_type', id: saved.id },
        { name: saved.name },
      );
      return this.editData(t, csrf, saved, valuesOf(saved), { notice: 'Saved.' });
    } catch (e) {
      const problems = problemsOf(e);
      if (!problems) throw e;
      req.ctx.errorCode = (e as ApiError).code;
      return this.editData(t, csrf, current, values, {
        errors: problems,
        error: { message: 'The booking type was not saved.', requestId: String(req.id) },
      });
    }
  }

  /** Publishes a type or takes it back (`public` = true or false), then back to the list. */
  @Post(':btype_id/publish')
  @ConsoleAuth(...BOOKING_TYPE_EDITORS)
  @PostedForm()
  async publish(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('btype_id') id: string,
    @Body() body: FormBody,
    @Req() req: FastifyRequest,
  ) {
    const back = `${PATH}?mode=${modeOf(t)}`;
    try {
      if (body.public !== 'true' && body.public !== 'false')
        throw ApiError.validation([{ location: 'body.public', message: 'must be true or false' }]);
      const saved = await this.types.setPublic(tenantOf(t), id, body.public === 'true');
      const action = saved.public ? 'booking_type.published' : 'booking_type.unpublished';
      await auditChange(this.audit, req, a, t, action, { type: 'booking_type', id: saved.id }, {});
      return { url: `${back}&notice=${saved.public ? 'published' : 'unpublished'}`, statusCode: 303 };
    } catch (e) {
      return failedBookingAction(req, e, back);
    }
  }
}
