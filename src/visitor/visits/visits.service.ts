import { Injectable } from '@nestjs/common';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, UnitOfWork } from '../../database/unit-of-work';
import type { EventTypeOf } from '../events/event-types';
import { EventsService } from '../events/events.service';
import type { Caller } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import { publicForm, type Form } from '../forms/custom-fields.validator';
import { EMPTY_FORM, FormsService } from '../forms/forms.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PeopleService } from '../people/people.service';
import type { Audience } from '../people/people.service';
import { typeProblems } from '../visit-types/visit-types.service';
import { ScreeningTrigger, WatchlistService } from '../watchlist/watchlist.service';
import { DEFAULT_PASS_CHANNELS, VisitsQuery } from './dto/visit.request';
import { toVisitResponse, VisitResponse } from './dto/visit.response';
import { PassesService } from './passes.service';
import { transition, VisitAction, VisitStatus } from './visit-state-machine';
import {
  ACTIVE_STATUSES,
  Tenant,
  VisitColumns,
  VisitFilter,
  VisitListRow,
  VisitRow,
  VisitsRepository,
} from './visits.repository';
import { queryRange } from '../../common/validation/timestamp';

export interface VisitInput {
  site_id: string;
  gate_id?: string | null;
  host_id: string;
  type: string;
  visitor: { name: string; phone: string; email?: string | null; company?: string | null };
  purpose?: string;
  expected_at?: string | null;
  expected_until?: string | null;
  pass_channels?: string[];
  custom_fields?: Record<string, unknown>;
}

export type VisitChanges = Partial<Omit<VisitInput, 'visitor' | 'pass_channels'>>;

/** Who calls: the tenant, whether a publishable key pre-registers, and the plan-history cutoff (live mode). */
export type VisitCaller = Pick<Caller, 'tenant' | 'hiddenBefore' | 'referenceVersion'> & {
  publishable?: boolean;
  /** Sees the visit's watchlist flag (holds watchlist:read); the console always does. */
  seesWatchlist?: boolean;
};

const hiddenByPlan = () =>
  new ApiError(
    'plan_required',
    "This visit is older than the organisation's plan shows; upgrade the plan to see its full visitor history.",
  );

/** A visit's values as checked and stored, from its input. */
const visitValues = (input: VisitInput) => ({
  site_id: input.site_id,
  gate_id: input.gate_id ?? null,
  host_id: input.host_id,
  type: input.type,
  expected_at: input.expected_at ? new Date(input.expected_at) : null,
  expected_until: input.expected_until ? new Date(input.expected_until) : null,
  custom_fields: input.custom_fields ?? {},
});

/** Statuses in which a visit can still be changed or get a new pass. */
const OPEN_STATUSES = ACTIVE_STATUSES;

/**
 * Visits: create (with the visitor record matched by phone and a pass queued after commit), change, the state
 * machine's transitions, resend-pass, visitor records and erasure. Every change records its events in the same
 * transaction; event payloads and integration reads omit protected answers.
 */
@Injectable()
export class VisitsService {
  constructor(
    private readonly repo: VisitsRepository,
    private readonly orgs: OrganisationsService,
    private readonly people: PeopleService,
    private readonly forms: FormsService,
    private readonly events: EventsService,
    private readonly passes: PassesService,
    private readonly watchlist: WatchlistService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** The visit for `audience`; the watchlist flag only for the console and callers that may see it. */
  view(
    form: Form,
    row: VisitRow | VisitListRow,
    audience: Audience = 'integration',
    seesWatchlist = false,
  ): VisitResponse {
    return toVisitResponse(
      row,
      audience === 'console' ? row.custom_fields : this.forms.protectedOmitted(form, row.custom_fields),
      audience === 'console' || seesWatchlist,
    );
  }

  /**
   * Screens the visit's visitor against the watchlist in `uow` (new matches flag the visit and record
   * watchlist.matched); returns the flag as it is now.
   */
  private async screen(
    uow: UnitOfWork,
    tenant: Tenant,
    row: Pick<
      VisitRow,
      'id' | 'visitor_id' | 'visitor_name' | 'visitor_phone' | 'visitor_email' | 'watchlist'
    >,
    trigger: ScreeningTrigger,
  ): Promise<VisitRow['watchlist']> {
    const flag = await this.watchlist.screen(
      uow,
      tenant,
      {
        visitId: row.id,
        visitorId: row.visitor_id,
        name: row.visitor_name,
        phone: row.visitor_phone,
        email: row.visitor_email,
      },
      trigger,
    );
    if (!flag) return row.watchlist;
    await this.repo.setWatchlist(uow.manager, tenant, row.id, flag);
    return flag;
  }

  /** Records `types` for the visit as it is now (re-read in the transaction), integration view. */
  async recordEvents(
    uow: UnitOfWork,
    tenant: Tenant,
    id: string,
    types: readonly EventTypeOf<'visit' | 'pass'>[],
  ): Promise<VisitRow> {
    const row = (await this.repo.find(tenant, id, uow.manager))!;
    const form = await this.forms.current(tenant, 'visit', uow.manager);
    for (const type of types) await this.events.record(uow, tenant, type, this.view(form, row));
    return row;
  }

  private isHidden(row: VisitRow, hiddenBefore: Date | null): boolean {
    return hiddenBefore !== null && row.created_at < hiddenBefore && !ACTIVE_STATUSES.includes(row.status);
  }

  /**
   * Checks the references and answers of a visit as it would be after the change; every problem at once,
   * each at its field's location. The lookups run in parallel. Returns the visit form it checked against.
   */
  private async check(
    caller: VisitCaller,
    v: {
      site_id: string;
      gate_id: string | null;
      host_id: string;
      type: string;
      expected_at: Date | null;
      expected_until: Date | null;
      custom_fields: Record<string, unknown>;
    },
    touched: Set<string>,
  ): Promise<Form> {
    const { tenant } = caller;
    const found = await this.repo.lookups(
      tenant,
      {
        siteId: v.site_id,
        hostId: touched.has('host_id') ? v.host_id : null,
        type: touched.has('type') ? v.type : null,
      },
      caller.referenceVersion,
    );
    const { site } = found;
    const host = touched.has('host_id') ? found.host : undefined;
    const typeErrors = touched.has('type')
      ? typeProblems(v.type, found.type, caller.publishable ?? false)
      : [];
    const form: Form = found.form ?? EMPTY_FORM;
    const errors: FieldError[] = [];
    if (!site)
      errors.push({
        location: 'body.site_id',
        message: `no site ${v.site_id} in this organisation and mode`,
      });
    else if (v.gate_id && !site.gates.some((g) => g.id === v.gate_id))
      errors.push({
        location: 'body.gate_id',
        message: `gate ${v.gate_id} is not a gate of site ${v.site_id}`,
      });
    if (host !== undefined && (!host || !host.active || !host.can_host))
      errors.push({
        location: 'body.host_id',
        message: host ? `person ${v.host_id} is not an active person who can host` : `no person ${v.host_id}`,
      });
    if (v.expected_until && !v.expected_at)
      errors.push({ location: 'body.expected_at', message: 'is required when expected_until is given' });
    if (v.expected_until && v.expected_at && v.expected_until <= v.expected_at)
      errors.push({ location: 'body.expected_until', message: 'must be after expected_at' });
    errors.push(...typeErrors);
    if (touched.has('custom_fields') || touched.has('site_id'))
      errors.push(...(await this.answerProblems(caller, form, v)));
    if (errors.length) throw ApiError.validation(errors);
    return form;
  }

  /** Problems of the answers: the form (the public form for pre-registration), site-only questions, people. */
  private async answerProblems(
    caller: VisitCaller,
    full: Form,
    v: { site_id: string; custom_fields: Record<string, unknown> },
  ): Promise<FieldError[]> {
    const { tenant } = caller;
    const conditional = full.schema.allOf !== undefined || full.schema.if !== undefined;
    if (Object.keys(v.custom_fields).length === 0 && !full.schema.required?.length && !conditional) return [];
    const form = caller.publishable ? publicForm(full) : full;
    const errors: FieldError[] = [];
    if (caller.publishable)
      for (const key of Object.keys(v.custom_fields))
        if (!(key in form.schema.properties))
          errors.push({
            location: `body.custom_fields.${key}`,
            message: 'is not a question of the public form',
          });
    if (errors.length) return errors;
    return this.forms.answerProblems(
      tenant,
      form,
      caller.publishable ? 'visit-public' : 'visit',
      v.custom_fields,
      {
        siteId: v.site_id,
        existingPeople: (ids) => this.people.existingIds(tenant, ids),
      },
    );
  }

  async create(
    caller: VisitCaller,
    input: VisitInput,
    audience: Audience = 'integration',
  ): Promise<VisitResponse> {
    const v = visitValues(input);
    const form = await this.check(caller, v, new Set(['host_id', 'type', 'custom_fields', 'site_id']));
    return this.tx.run((uow) => this.insert(uow, caller, input, v, form, audience), IS_RESPONSE);
  }

  /**
   * Checks the references of a booking's visit before its transaction (a host may have left since the booking);
   * the answers were checked when the booking was made, against the form the booking's caller could answer, so
   * they are not. Returns the visit form for `createForBooking`. Outside the transaction on purpose: the booking
   * transaction then holds one pooled connection only. `referenceVersion`: the booking caller's.
   */
  checkForBooking(tenant: Tenant, input: VisitInput, referenceVersion?: string): Promise<Form> {
    return this.check(
      { tenant, hiddenBefore: null, referenceVersion },
      visitValues(input),
      new Set(['host_id', 'type']),
    );
  }

  /**
   * The visit of a booking being confirmed, in the booking's transaction (`visit.created`, a pass queued after
   * commit), with the id `id` when the booking made it already. Its statement is written when this is called
   * (before its first await), so the booking's own statements written right behind it, without awaiting it, go out
   * in the same round trip.
   */
  createForBooking(
    uow: UnitOfWork,
    tenant: Tenant,
    input: VisitInput & { booking_id: string },
    form: Form,
    id?: string,
  ): Promise<VisitResponse> {
    const caller: VisitCaller = { tenant, hiddenBefore: null };
    return this.insert(uow, caller, input, visitValues(input), form, 'integration', input.booking_id, id);
  }

  /** The visit of a rescheduled booking moves with it (`visit.updated`), while it is still open. */
  async moveForBooking(uow: UnitOfWork, tenant: Tenant, id: string, at: Date, until: Date): Promise<void> {
    const row = await this.repo.find(tenant, id, uow.manager, true);
    if (!row || !OPEN_STATUSES.includes(row.status)) return;
    await this.repo.update(uow.manager, tenant, id, {
      expected_at: at,
      expected_until: until,
      updated_at: this.clock.now(),
    });
    await this.recordEvents(uow, tenant, id, ['visit.updated']);
  }

  /** The visit of a cancelled booking is cancelled too (`visit.cancelled`), unless it already moved on. */
  async cancelForBooking(uow: UnitOfWork, tenant: Tenant, id: string, reason: string | null): Promise<void> {
    const row = await this.repo.find(tenant, id, uow.manager, true);
    if (!row || row.status !== 'expected') return;
    const t = transition(row.status, 'cancel', { siteRequiresApproval: false });
    const now = this.clock.now();
    const changes: VisitColumns = { status: t.to, updated_at: now, cancel_reason: reason };
    for (const col of t.sets) changes[col] = now;
    await this.repo.update(uow.manager, tenant, id, changes);
    await this.recordEvents(uow, tenant, id, t.events);
  }

  private async insert(
    uow: UnitOfWork,
    caller: VisitCaller,
    input: VisitInput,
    v: ReturnType<typeof visitValues>,
    form: Form,
    audience: Audience,
    bookingId: string | null = null,
    id: string = newId('visit'),
  ): Promise<VisitResponse> {
    const { tenant } = caller;
    const now = this.clock.now();
    const channels = [...new Set(input.pass_channels ?? DEFAULT_PASS_CHANNELS)];
    const columns = {
      id,
      status: 'expected',
      type: v.type,
      source: bookingId
        ? ('booking' as const)
        : caller.publishable
          ? ('pre_registration' as const)
          : ('invitation' as const),
      site_id: v.site_id,
      gate_id: v.gate_id,
      host_id: v.host_id,
      purpose: input.purpose ?? '',
      expected_at: v.expected_at,
      expected_until: v.expected_until,
      pass_channels: channels,
      custom_fields: v.custom_fields,
      booking_id: bookingId,
      created_at: now,
    } satisfies VisitColumns;
    // Visitor, visit and pass in one statement; the event follows in the same transaction.
    const visitor = await this.repo.createVisit(
      uow.manager,
      tenant,
      {
        id: newId('visitor'),
        name: input.visitor.name.trim(),
        phone: input.visitor.phone,
        email: input.visitor.email ?? null,
        company: input.visitor.company ?? null,
      },
      columns,
      this.passes.newPass(uow, channels),
    );
    // The row as a read would return it, built from what was just written (no re-read on the hot path).
    const row: VisitRow = {
      ...columns,
      organisation_id: tenant.organisationId,
      livemode: tenant.livemode,
      visitor_id: visitor.id,
      visitor_name: visitor.name,
      visitor_phone: visitor.phone,
      visitor_email: visitor.email,
      visitor_company: visitor.company,
      checked_in_at: null,
      checked_out_at: null,
      cancelled_at: null,
      cancel_reason: null,
      decision_outcome: null,
      decided_at: null,
      decided_by: null,
      decision_reason: null,
      pass_last_sent_at: null,
      watchlist: null,
      updated_at: now,
    };
    const integration = this.view(form, row);
    await this.events.record(uow, tenant, 'visit.created', integration);
    // The create statement said whether the tenant has a watchlist at all (read in this transaction).
    if (visitor.screen) row.watchlist = await this.screen(uow, tenant, row, 'visit.created');
    return audience === 'integration' && !caller.seesWatchlist
      ? integration
      : this.view(form, row, audience, caller.seesWatchlist);
  }

  /** The visitor of the tenant's visit, read in `uow`; null when the tenant has no such visit (files ask it). */
  async visitorOf(uow: UnitOfWork, tenant: Tenant, id: string): Promise<string | null> {
    return (await this.repo.find(tenant, id, uow.manager))?.visitor_id ?? null;
  }

  /** Whether any visit of the organisation, in either mode, has the type (visit types ask before deleting one). */
  hasVisitOfType(uow: UnitOfWork, organisationId: string, type: string): Promise<boolean> {
    return this.repo.anyOfType(uow.manager, organisationId, type);
  }

  /**
   * The bulk seeder's visitor records and visits at new organisations' sites, hosted by `hosts` (see
   * `VisitsRepository.seedBulk`): how many records were new, and the `visit.created` object of each new visit.
   */
  seedBulk(
    orgs: { organisationId: string; siteId: string }[],
    hosts: string[],
    counts: { visitors: number; visits: number },
  ): ReturnType<VisitsRepository['seedBulk']> {
    if (orgs.length === 0) return Promise.resolve({ visitors: 0, visits: [] });
    return this.repo.seedBulk(orgs, hosts, counts);
  }

  async get(caller: VisitCaller, id: string, audience: Audience = 'integration'): Promise<VisitResponse> {
    const row = await this.repo.find(caller.tenant, id);
    if (!row) throw ApiError.notFound(`Visit ${id}`);
    if (this.isHidden(row, caller.hiddenBefore)) throw hiddenByPlan();
    return this.view(await this.forms.current(caller.tenant, 'visit'), row, audience, caller.seesWatchlist);
  }

  async list(
    caller: VisitCaller,
    f: Omit<VisitFilter, 'hiddenBefore'>,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<VisitListRow[]> {
    return this.repo.list(caller.tenant, { ...f, hiddenBefore: caller.hiddenBefore }, limit, after);
  }

  /** The integration view of the tenant's visits (its current form decides which answers are protected). */
  async viewer(tenant: Tenant, seesWatchlist = false): Promise<(r: VisitListRow) => VisitResponse> {
    const form = (await this.repo.currentForm(tenant)) ?? EMPTY_FORM;
    return (r) => this.view(form, r, 'integration', seesWatchlist);
  }

  /** Locks the visit for a change; not found, hidden by plan history, or in a status that forbids `verb`. */
  private async lock(uow: UnitOfWork, caller: VisitCaller, id: string): Promise<VisitRow> {
    const row = await this.repo.find(caller.tenant, id, uow.manager, true);
    if (!row) throw ApiError.notFound(`Visit ${id}`);
    if (this.isHidden(row, caller.hiddenBefore)) throw hiddenByPlan();
    return row;
  }

  async update(caller: VisitCaller, id: string, input: VisitChanges): Promise<VisitResponse> {
    const current = await this.repo.find(caller.tenant, id);
    if (!current) throw ApiError.notFound(`Visit ${id}`);
    if (this.isHidden(current, caller.hiddenBefore)) throw hiddenByPlan();
    const touched = new Set(
      Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined),
    );
    const has = (k: keyof VisitChanges) => touched.has(k);
    const date = (s: string | null | undefined) => (s ? new Date(s) : null);
    const next = {
      site_id: input.site_id ?? current.site_id,
      // moving to another site drops the gate unless a new one is given
      gate_id: has('gate_id') ? (input.gate_id ?? null) : has('site_id') ? null : current.gate_id,
      host_id: input.host_id ?? current.host_id,
      type: input.type ?? current.type,
      expected_at: has('expected_at') ? date(input.expected_at) : current.expected_at,
      expected_until: has('expected_until') ? date(input.expected_until) : current.expected_until,
      custom_fields:
        input.custom_fields === undefined
          ? current.custom_fields
          : this.forms.keepingHidden(
              await this.forms.current(caller.tenant, 'visit'),
              current.custom_fields,
              input.custom_fields,
            ),
    };
    await this.check(caller, next, touched);
    return this.tx.run(async (uow) => {
      const row = await this.lock(uow, caller, id);
      if (!OPEN_STATUSES.includes(row.status))
        throw new ApiError('invalid_state', `A visit in status ${row.status} can no longer be changed.`);
      const changes: VisitColumns = { ...next, updated_at: this.clock.now() };
      if (has('purpose')) changes.purpose = input.purpose ?? '';
      await this.repo.update(uow.manager, caller.tenant, id, changes);
      await this.screen(uow, caller.tenant, row, 'visit.updated');
      const updated = await this.recordEvents(uow, caller.tenant, id, ['visit.updated']);
      return this.view(
        await this.forms.current(caller.tenant, 'visit', uow.manager),
        updated,
        'integration',
        caller.seesWatchlist,
      );
    });
  }

  /** One transition of the state machine; concurrent calls serialise on the row lock, so one wins. */
  async act(
    caller: VisitCaller,
    id: string,
    action: VisitAction,
    extra: { reason?: string | null; decidedBy?: string | null; passToken?: string | null } = {},
  ): Promise<VisitResponse> {
    const { tenant } = caller;
    if (extra.decidedBy) {
      const found = await this.people.existingIds(tenant, [extra.decidedBy]);
      if (!found.has(extra.decidedBy))
        throw ApiError.validation([{ location: 'body.decided_by', message: `no person ${extra.decidedBy}` }]);
    }
    return this.tx.run(async (uow) => {
      const row = await this.lock(uow, caller, id);
      if (extra.passToken) await this.passes.check(row.id, extra.passToken);
      const site = await this.orgs.findSite(tenant, row.site_id, uow);
      // Check-in screens again (entries may have been added since); at a site that holds them, a visit with a
      // high-severity match waits for approval instead of checking in.
      const flag =
        action === 'check_in' && row.status === 'expected'
          ? await this.screen(uow, tenant, row, 'visit.check_in')
          : row.watchlist;
      const held = (site?.watchlist_holds_check_in ?? false) && flag?.severity === 'high';
      const t = transition(row.status, action, {
        siteRequiresApproval: (site?.requires_host_approval ?? false) || held,
      });
      // A booking's visit is cancelled with its booking (which gives the slot back), never on its own.
      if (action === 'cancel' && row.booking_id)
        throw new ApiError(
          'invalid_state',
          `Visit ${id} is the visit of booking ${row.booking_id}: cancel the booking (POST /v1/bookings/${row.booking_id}/cancel), which cancels this visit too and gives its slot back.`,
        );
      const now = this.clock.now();
      const changes: VisitColumns = { status: t.to, updated_at: now };
      for (const col of t.sets) changes[col] = now;
      if (action === 'cancel') changes.cancel_reason = extra.reason ?? null;
      if (action === 'approve' || action === 'deny')
        Object.assign(changes, {
          decision_outcome: action === 'approve' ? 'approved' : 'denied',
          decided_by: extra.decidedBy ?? null,
          decision_reason: extra.reason ?? null,
        });
      await this.repo.update(uow.manager, tenant, id, changes);
      const updated = await this.recordEvents(uow, tenant, id, t.events);
      return this.view(
        await this.forms.current(tenant, 'visit', uow.manager),
        updated,
        'integration',
        caller.seesWatchlist,
      );
    }, IS_RESPONSE);
  }

  async resendPass(caller: VisitCaller, id: string, channels?: string[]): Promise<VisitResponse> {
    return this.tx.run(async (uow) => {
      const row = await this.lock(uow, caller, id);
      if (!OPEN_STATUSES.includes(row.status))
        throw new ApiError('invalid_state', `A visit in status ${row.status} gets no new pass.`);
      const use = channels?.length ? [...new Set(channels)] : row.pass_channels;
      if (channels?.length)
        await this.repo.update(uow.manager, caller.tenant, id, {
          pass_channels: use,
          updated_at: this.clock.now(),
        });
      await this.passes.reissue(uow, caller.tenant, id, use);
      const form = await this.forms.current(caller.tenant, 'visit', uow.manager);
      return this.view(
        form,
        (await this.repo.find(caller.tenant, id, uow.manager))!,
        'integration',
        caller.seesWatchlist,
      );
    }, IS_RESPONSE);
  }

  /** The tenant's visits due in [from, to) counted by status (the console's overview). */
  countByStatus(tenant: Tenant, from: Date, to: Date): Promise<{ status: VisitStatus; count: number }[]> {
    return this.repo.countByStatus(tenant, from, to);
  }

  /** `GET /v1/visits`; the console adds its visitor-name filter (`more`). */
  async page(
    caller: VisitCaller,
    q: VisitsQuery,
    more: Pick<VisitFilter, 'visitorName'> = {},
  ): Promise<Page<VisitResponse>> {
    // The page and the form that decides which answers it shows are read at the same time.
    const [rows, view] = await Promise.all([
      this.rowsPage(caller, q, more),
      this.viewer(caller.tenant, caller.seesWatchlist),
    ]);
    return { ...rows, data: rows.data.map(view) };
  }

  /**
   * The page of `page` (filters, order, cursors) as stored rows, without the form that decides which answers a
   * response shows: for lists that show no answers (the console's).
   */
  rowsPage(
    caller: VisitCaller,
    q: VisitsQuery,
    more: Pick<VisitFilter, 'visitorName'> = {},
  ): Promise<Page<VisitListRow>> {
    const expected = queryRange(q, 'expected_from', 'expected_to');
    const filter = {
      status: q.status,
      siteId: q.site_id,
      hostId: q.host_id,
      expectedFrom: expected.from,
      expectedTo: expected.to,
      updatedSince: q.updated_since ? new Date(q.updated_since) : undefined,
      ...more,
    };
    return this.cursors.codec.createdPage(
      'visits',
      caller.tenant,
      q,
      (limit, after) => this.list(caller, filter, limit + 1, after),
      (r) => r,
    );
  }

  /** Marks `expected` visits whose window ended more than the grace period ago as no-shows; returns how many. */
  async markNoShows(graceMinutes: number, batch = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tx.run(async (uow) => {
        const now = this.clock.now();
        const due = await this.repo.dueNoShows(
          uow.manager,
          new Date(now.getTime() - graceMinutes * 60_000),
          batch,
        );
        for (const v of due)
          await this.noShow(uow, { organisationId: v.organisation_id, livemode: v.livemode }, v, now);
        return due.length;
      });
      total += n;
      if (n < batch) return total;
    }
  }

  /**
   * Test helper (POST /v1/test-helpers/visits/{id}/no-show): an `expected` visit becomes a no-show now, as the
   * minute job makes it once its window and the grace period have passed; another status is `invalid_state`.
   */
  async markNoShowNow(caller: VisitCaller, id: string): Promise<VisitResponse> {
    return this.tx.run(async (uow) => {
      const row = await this.lock(uow, caller, id);
      const updated = await this.noShow(uow, caller.tenant, row, this.clock.now());
      return this.view(
        await this.forms.current(caller.tenant, 'visit', uow.manager),
        updated,
        'integration',
        caller.seesWatchlist,
      );
    }, IS_RESPONSE);
  }

  /** One visit's no-show: the transition (from `expected` only), its row and its event. */
  private async noShow(uow: UnitOfWork, tenant: Tenant, v: { id: string; status: VisitStatus }, now: Date) {
    const t = transition(v.status, 'no_show', { siteRequiresApproval: false });
    await this.repo.update(uow.manager, tenant, v.id, { status: t.to, updated_at: now });
    return this.recordEvents(uow, tenant, v.id, t.events);
  }
}
