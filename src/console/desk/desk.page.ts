import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import { DeliveriesService } from '../../visitor/deliveries/deliveries.service';
import {
  CollectDeliveryBody,
  CreateDeliveryBody,
  DELIVERY_STATUSES,
  ReturnDeliveryBody,
} from '../../visitor/deliveries/dto/delivery.request';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PeopleService } from '../../visitor/people/people.service';
import { roleAllows } from '../../visitor/platform/scopes';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { ConsolePage } from '../frame/console-page';
import { when } from '../frame/overview.page';
import { pagerLinks } from '../frame/pager';
import {
  checked,
  DESK,
  deskAudit,
  deskAction,
  deskHeader,
  deskRoles,
  field,
  inMode,
  listOrError,
  listQuery,
  cursorOf,
  submitted,
  tenantOf,
} from './desk-view';

type Form = Record<string, string | undefined>;
const PAGE_SIZE = 25;
/** People offered as recipients (the form's list); more than this, and the list says so. */
const PEOPLE_MAX = 200;
const STATUS_WORDS: Record<string, string> = {
  received: 'Waiting',
  collected: 'Collected',
  returned: 'Returned',
};

/**
 * The front desk (`/console/desk`, issue 31 page 6), its entry page: deliveries waiting at reception (or all, by
 * status), paged by cursor; record one for a person (who is notified), mark it collected (by the recipient or
 * someone named), return it to the sender after a confirmation. Roll calls and the watchlist are the desk's other
 * sections (`desk-rollcalls.page.ts`, `desk-watchlist.page.ts`). Everything goes through DeliveriesService, as
 * `/v1/deliveries` does, with the API's role rules; every change is audited.
 */
@ApiExcludeController()
@Controller('console/desk')
@ConsoleAuth(...deskRoles('deliveries:read'))
export class ConsoleDeskPageController {
  constructor(
    private readonly deliveries: DeliveriesService,
    private readonly organisations: OrganisationsService,
    private readonly people: PeopleService,
    private readonly audit: AuditService,
  ) {}

  private async view(
    a: ConsoleCaller,
    t: ConsoleTenantOf,
    csrf: string,
    query: Record<string, unknown>,
    req: FastifyRequest,
    extra: Record<string, unknown> = {},
  ) {
    const tenant = tenantOf(t);
    const status = typeof query.status === 'string' ? query.status : 'received';
    const known = status === 'all' || (DELIVERY_STATUSES as readonly string[]).includes(status);
    const [sites, people] = await Promise.all([
      this.organisations.listSites(tenant),
      this.people.list(tenant, { limit: PEOPLE_MAX }),
    ]);
    const names = new Map(people.data.map((p) => [p.id, p.name]));
    const siteNames = new Map(sites.map((s) => [s.id, s.name]));
    const writes = roleAllows(a.role, 'deliveries:write');
    const { page, error } = await listOrError(req, () => {
      if (!known)
        throw ApiError.validation([{ location: 'query.status', message: 'choose one of the list' }]);
      return this.deliveries.page(tenant, {
        limit: PAGE_SIZE,
        ...(status === 'all' ? {} : { status: status as (typeof DELIVERY_STATUSES)[number] }),
        ...cursorOf(query),
      });
    });
    return {
      title: 'Front desk',
      ...deskHeader(a, t, 'deliveries', query, csrf),
      ...(error ? { error } : {}),
      status: known ? status : 'received',
      statuses: [
        ...DELIVERY_STATUSES.map((s) => ({ value: s, words: STATUS_WORDS[s] })),
        { value: 'all', words: 'Every status' },
      ],
      writes,
      action: inMode(t, DESK),
      sites: sites.map((s) => ({ id: s.id, name: s.name })),
      people: [...people.data]
        .sort((x, y) => x.name.localeCompare(y.name))
        .map((p) => ({ id: p.id, name: p.name })),
      morePeople: people.hasMore,
      values: {
        site_id: sites[0]?.id ?? '',
        recipient_id: '',
        carrier: '',
        tracking_number: '',
        description: '',
      },
      errors: [] as string[],
      rows: (page?.data ?? []).map((d) => ({
        id: d.id,
        recipient: names.get(d.recipient_id) ?? d.recipient_id,
        site: siteNames.get(d.site_id) ?? d.site_id,
        status: d.status,
        statusWords: STATUS_WORDS[d.status] ?? d.status,
        carrier: d.carrier,
        tracking: d.tracking_number,
        description: d.description,
        received: when(d.received_at),
        notified: d.notified_at ? when(d.notified_at) : null,
        outcome:
          d.status === 'collected'
            ? `${when(d.collected_at)} by ${d.collected_by_name ?? (d.collected_by ? (names.get(d.collected_by) ?? d.collected_by) : 'someone')}`
            : d.status === 'returned'
              ? `${when(d.returned_at)}${d.return_reason ? `: ${d.return_reason}` : ''}`
              : null,
        collect: writes && d.status === 'received' ? inMode(t, `${DESK}/deliveries/${d.id}/collect`) : null,
        returnLink: writes && d.status === 'received' ? inMode(t, `${DESK}/deliveries/${d.id}/return`) : null,
      })),
      pager: page ? pagerLinks(DESK, listQuery(query), page) : null,
      ...extra,
    };
  }

  @Get()
  @ConsolePage('console-desk')
  show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Query() query: Record<string, unknown>,
    @Req() req: FastifyRequest,
  ) {
    return this.view(a, t, csrf, query, req);
  }

  /** Records a delivery (the recipient is notified); problems re-render the form with what was typed. */
  @Post()
  @ConsoleAuth(...deskRoles('deliveries:write'))
  @ConsolePage('console-desk')
  @CheckCsrf()
  async record(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    const values = {
      site_id: field(form.site_id) ?? '',
      recipient_id: field(form.recipient_id) ?? '',
      carrier: field(form.carrier) ?? '',
      tracking_number: field(form.tracking_number) ?? '',
      description: field(form.description) ?? '',
    };
    return submitted(
      req,
      'The delivery was not recorded.',
      async () => {
        const body = checked(CreateDeliveryBody, {
          site_id: values.site_id,
          recipient_id: values.recipient_id,
          carrier: field(form.carrier),
          tracking_number: field(form.tracking_number),
          description: field(form.description),
        });
        const d = await this.deliveries.create(tenantOf(t), body);
        await deskAudit(this.audit, req, a, t, {
          action: 'delivery.recorded',
          target: { type: 'delivery', id: d.id },
          data: { recipient_id: d.recipient_id, site_id: d.site_id },
        });
        return this.view(a, t, csrf, {}, req, {
          notice: d.notified_at
            ? 'Delivery recorded; the recipient has been told.'
            : 'Delivery recorded (the recipient could not be told: no e-mail or phone that works).',
        });
      },
      (refusal) => this.view(a, t, csrf, {}, req, { values, ...refusal }),
    );
  }

  /** received → collected, by the recipient or by someone named in the form. */
  @Post('deliveries/:delivery_id/collect')
  @ConsoleAuth(...deskRoles('deliveries:write'))
  @PostedForm()
  async collect(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('delivery_id') id: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    return deskAction({ audit: this.audit, req, a, t }, inMode(t, DESK), async () => {
      const body = checked(CollectDeliveryBody, { collected_by_name: field(form.collected_by_name) });
      const d = await this.deliveries.collect(tenantOf(t), id, body);
      return {
        notice: 'collected',
        action: 'delivery.collected',
        target: { type: 'delivery', id: d.id },
        data: { collected_by: d.collected_by, collected_by_name: d.collected_by_name },
      };
    });
  }

  /** The confirmation step of returning a delivery to its sender, with an optional reason. */
  @Get('deliveries/:delivery_id/return')
  @ConsoleAuth(...deskRoles('deliveries:write'))
  @ConsolePage('console-desk-return')
  async confirmReturn(
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('delivery_id') id: string,
    @CsrfToken() csrf: string,
  ) {
    const d = await this.deliveries.get(tenantOf(t), id);
    if (d.status !== 'received')
      throw new ApiError(
        'invalid_state',
        `Delivery ${id} is ${d.status}; only a waiting delivery can be returned.`,
      );
    const what = [d.carrier, d.tracking_number, d.description].filter(Boolean).join(', ');
    return {
      title: 'Return the delivery to its sender?',
      what: what || 'A delivery without description',
      received: when(d.received_at),
      action: inMode(t, `${DESK}/deliveries/${d.id}/return`),
      cancel: inMode(t, DESK),
      csrf,
    };
  }

  @Post('deliveries/:delivery_id/return')
  @ConsoleAuth(...deskRoles('deliveries:write'))
  @PostedForm()
  async returnToSender(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('delivery_id') id: string,
    @Body() form: Form,
    @Req() req: FastifyRequest,
  ) {
    return deskAction({ audit: this.audit, req, a, t }, inMode(t, DESK), async () => {
      const body = checked(ReturnDeliveryBody, { reason: field(form.reason) });
      const d = await this.deliveries.returnToSender(tenantOf(t), id, body);
      return {
        notice: 'returned',
        action: 'delivery.returned',
        target: { type: 'delivery', id: d.id },
        data: { reason: d.return_reason },
      };
    });
  }
}
