import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Clock } from '../../common/clock';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { BookingsService } from '../../visitor/bookings/bookings.service';
import { EventsService } from '../../visitor/events/events.service';
import { OrganisationsService } from '../../visitor/organisations/organisations.service';
import { PLAN_RULES, Plan } from '../../visitor/platform/plans';
import { roleAllows, SCOPES } from '../../visitor/platform/scopes';
import { VISIT_STATUSES } from '../../visitor/visits/visit-state-machine';
import { VisitsService } from '../../visitor/visits/visits.service';
import { WebhookEndpointsService } from '../../visitor/webhooks/webhook-endpoints.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from './console-nav';
import { ConsolePage } from './console-page';

const PLAN_NAMES: Record<Plan, string> = {
  free: 'Free',
  starter: 'Starter',
  growth: 'Growth',
  pro: 'Pro',
  enterprise: 'Enterprise',
};

export const STATUS_WORDS: Record<string, string> = {
  expected: 'Expected',
  awaiting_approval: 'Awaiting approval',
  checked_in: 'Checked in',
  checked_out: 'Checked out',
  cancelled: 'Cancelled',
  denied: 'Denied',
  no_show: 'No-show',
};

/** `YYYY-MM-DDTHH:MM…Z`: an instant already written as `Date#toISOString` writes it (the list repositories' form). */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z$/;

/** An instant to the minute in UTC (`2026-11-26 09:30 UTC`); an ISO UTC string is cut, not parsed (a list's 50 calls). */
export const when = (iso: string | Date | null) => {
  if (!iso) return 'never';
  if (typeof iso === 'string' && ISO_UTC.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
};

/** Start of the local day containing `now` in `timeZone`, and of the next one, as instants. */
export function localDay(now: Date, timeZone: string): { from: Date; to: Date; label: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const label = `${parts.year}-${parts.month}-${parts.day}`;
  // The zone's offset now: local wall time read as UTC, minus the instant.
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const offset = wall - Math.floor(now.getTime() / 1000) * 1000;
  const from = new Date(Date.UTC(+parts.year, +parts.month - 1, +parts.day) - offset);
  return { from, to: new Date(from.getTime() + 86_400_000), label };
}

/**
 * The console overview (`/console`, issue 31 page 1): the plan, sites and gates, today's visits by status,
 * pending bookings, failing webhook endpoints and recent events of the organisation in the chosen mode.
 */
@ApiExcludeController()
@Controller('console')
@ConsoleAuth(...consoleRoles('/console'))
export class ConsoleOverviewPageController {
  constructor(
    private readonly organisations: OrganisationsService,
    private readonly visits: VisitsService,
    private readonly bookings: BookingsService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly events: EventsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ConsolePage('console-overview')
  async show(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Query('notice') notice?: string,
  ) {
    const tenant = { organisationId: t.organisationId, livemode: t.livemode };
    const org = await this.organisations.organisation(t.organisationId);
    const rules = PLAN_RULES[org.plan];
    const day = localDay(this.clock.now(), org.time_zone);
    const [sites, counts, pending, endpoints, events] = await Promise.all([
      this.organisations.listSites(tenant),
      this.visits.countByStatus(tenant, day.from, day.to),
      roleAllows(a.role, 'bookings:read')
        ? this.bookings.page(tenant, { status: 'pending', limit: 10 })
        : null,
      roleAllows(a.role, 'webhooks:manage') ? this.endpoints.list(tenant, { limit: 100 }) : null,
      this.events.list(tenant, new Set(SCOPES.filter((s) => roleAllows(a.role, s))), { limit: 10 }),
    ]);
    const byStatus = new Map(counts.map((c) => [c.status, c.count]));
    return {
      title: 'Overview',
      notice:
        notice === 'sandbox-reset'
          ? 'The test data is deleted; configuration and live data are unchanged.'
          : null,
      // test mode only, for the roles that may reset it (the /v1 helper's visitors:delete)
      canResetSandbox: !t.livemode && roleAllows(a.role, 'visitors:delete'),
      plan: {
        name: PLAN_NAMES[org.plan],
        live:
          rules.live.length === 0
            ? 'No live-mode access: everything runs in test mode.'
            : rules.live.includes('rest')
              ? 'Live mode: the full REST API.'
              : 'Live mode: webhook endpoints and events only.',
      },
      sites: sites.map((s) => ({ name: s.name, timeZone: s.time_zone, gates: s.gates.map((g) => g.name) })),
      today: {
        label: day.label,
        total: counts.reduce((n, c) => n + c.count, 0),
        statuses: VISIT_STATUSES.map((s) => ({
          status: s,
          words: STATUS_WORDS[s],
          count: byStatus.get(s) ?? 0,
        })),
      },
      pending: pending
        ? {
            items: pending.data.map((b) => ({
              id: b.id,
              who: b.attendee.name ?? '(erased)',
              start: when(b.start),
            })),
            more: pending.has_more,
          }
        : null,
      failing: endpoints
        ? endpoints.data
            .filter((e) => e.status === 'disabled' && e.disabled_reason === 'failing')
            .map((e) => ({ id: e.id, url: e.url, since: when(e.updated_at) }))
        : null,
      events: events.data.map((e) => ({ id: e.id, type: e.type, at: when(e.created_at) })),
    };
  }
}
