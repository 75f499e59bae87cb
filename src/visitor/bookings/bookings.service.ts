import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { newId } from '../../common/ids';
import { allAnswered } from '../../database/pipeline';
import { IS_RESPONSE, RunOptions, Transactions, UnitOfWork } from '../../database/unit-of-work';
import type { Slot } from '../booking-types/availability';
import type { UsableType } from '../booking-types/booking-types.service';
import { BookingTypesService } from '../booking-types/booking-types.service';
import type { EventTypeOf } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { publicForm, type Form } from '../forms/custom-fields.validator';
import { FormsService } from '../forms/forms.service';
import { localWhen } from '../messages/local-time';
import { MessagesService } from '../messages/messages.service';
import { PeopleService } from '../people/people.service';
import type { Caller } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { VisitsService } from '../visits/visits.service';
import {
  BOOKING_TRANSITIONS,
  BookingAction,
  bookingTransition,
  BookingTransition,
  initialTransition,
} from './booking-state-machine';
import { BookingRow, BookingsRepository } from './bookings.repository';
import type { BookingsQuery, CreateBookingBody } from './dto/booking.request';
import { BookingResponse, toBookingResponse } from './dto/booking.response';
import { queryRange } from '../../common/validation/timestamp';

/** What a transition needs that is read before its transaction. */
interface Prepared {
  form: Form;
  type?: UsableType;
  visitForm?: Form;
  slot?: Slot;
}

/** The created booking is the request's response: an idempotent POST stores it in the same transaction. */
/** A transition's view is the response (an expiry found instead is committed, then answered with an error). */
const ACTED: RunOptions = {
  responseOf: (o: { expired: boolean; view?: BookingResponse }) => (o.expired ? undefined : o.view),
};

/**
 * When a pending booking must be confirmed by: the confirmation window from now, but never later than the slot's
 * start (a booking confirmed after its slot began would be of no use; it expires at the start instead).
 */
export function confirmBy(now: Date, windowHours: number, start: Date): Date {
  return new Date(Math.min(now.getTime() + windowHours * 3_600_000, start.getTime()));
}

const slotTaken = () =>
  new ApiError('conflict', 'This slot has just been taken; pick another slot from the availability.', [
    { location: 'body.start', message: 'is no longer free' },
  ]);

/**
 * Bookings: create (a place of the slot taken in PostgreSQL, then pending or confirmed with its visit), the
 * transitions of the one table in `booking-state-machine.ts` under a row lock, expiry of pending bookings, lists.
 * Every change records its events in the same transaction.
 */
@Injectable()
export class BookingsService {
  constructor(
    private readonly repo: BookingsRepository,
    private readonly types: BookingTypesService,
    private readonly people: PeopleService,
    private readonly visits: VisitsService,
    private readonly forms: FormsService,
    private readonly events: EventsService,
    private readonly messages: MessagesService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** The integration view: protected answers omitted (the same rule as visits). */
  private view(
    form: Form,
    b: BookingRow,
    reader: 'organisation' | 'attendee' = 'organisation',
  ): BookingResponse {
    return toBookingResponse(
      { ...b, customFields: this.forms.protectedOmitted(form, b.customFields) },
      reader,
    );
  }

  private async record(
    uow: UnitOfWork,
    tenant: Tenant,
    form: Form,
    b: BookingRow,
    types: readonly EventTypeOf<'booking'>[],
  ): Promise<void> {
    for (const type of types) await this.events.record(uow, tenant, type, this.view(form, b));
  }

  /** Problems of the answers: with a publishable key only public questions, then the form's own checks. */
  private async answerProblems(
    caller: Pick<Caller, 'tenant' | 'publishable'>,
    full: Form,
    siteId: string,
    answers: Record<string, unknown>,
  ): Promise<FieldError[]> {
    const form = caller.publishable ? publicForm(full) : full;
    if (caller.publishable) {
      const outside = Object.keys(answers).filter((k) => !(k in form.schema.properties));
      if (outside.length)
        return outside.map((k) => ({
          location: `body.custom_fields.${k}`,
          message: 'is not a question of the public form',
        }));
    }
    if (!Object.keys(answers).length && !form.schema.required?.length) return [];
    return this.forms.answerProblems(
      caller.tenant,
      form,
      caller.publishable ? 'visit-public' : 'visit',
      answers,
      {
        siteId,
        existingPeople: (ids) => this.people.existingIds(caller.tenant, ids),
      },
    );
  }

  /** POST /v1/bookings. */
  async create(
    caller: Pick<Caller, 'tenant' | 'publishable' | 'referenceVersion'>,
    input: CreateBookingBody,
  ): Promise<BookingResponse> {
    const { tenant, publishable, referenceVersion } = caller;
    const type = await this.types.usable(tenant, input.booking_type_id, publishable, referenceVersion);
    const slot = this.types.slotFor(type, new Date(input.start), 'body.start');
    const hostId = input.host_id ?? type.row.hostIds[0];
    const errors: FieldError[] = [];
    if (!type.row.hostIds.includes(hostId))
      errors.push({ location: 'body.host_id', message: `is not a host of booking type ${type.row.id}` });
    const answers = input.custom_fields ?? {};
    const t = initialTransition(type.row.requiresConfirmation);
    const attendee = {
      attendeeName: input.attendee.name.trim(),
      attendeePhone: input.attendee.phone,
      attendeeEmail: input.attendee.email ?? null,
      attendeeCompany: input.attendee.company ?? null,
    };
    // Every read happens before the transaction, which then holds one pooled connection and the slot's row lock
    // only for its own writes (waiters on a full slot cannot starve it of connections). A booking confirmed at
    // once checks its visit now; that check reads the current visit form too.
    const visitForm =
      t.visit === 'create'
        ? await this.visits.checkForBooking(
            tenant,
            this.visitInput(type, {
              ...attendee,
              hostId,
              siteId: type.row.siteId,
              startsAt: slot.start,
              endsAt: slot.end,
              customFields: answers,
            }),
            referenceVersion,
          )
        : null;
    const form = visitForm ?? (await this.forms.current(tenant, 'visit'));
    errors.push(...(await this.answerProblems(caller, form, type.row.siteId, answers)));
    if (errors.length) throw ApiError.validation(errors);
    return this.tx.run(async (uow) => {
      const now = this.clock.now();
      const b: BookingRow = {
        id: newId('booking'),
        organisationId: tenant.organisationId,
        livemode: tenant.livemode,
        bookingTypeId: type.row.id,
        status: t.to,
        source: publishable ? 'publishable_key' : 'api',
        startsAt: slot.start,
        endsAt: slot.end,
        siteId: type.row.siteId,
        hostId,
        ...attendee,
        customFields: answers,
        visitId: visitForm ? newId('visit') : null,
        confirmBy: t.to === 'pending' ? confirmBy(now, type.row.confirmationWindowHours, slot.start) : null,
        confirmedAt: t.sets.includes('confirmed_at') ? now : null,
        declinedAt: null,
        declineReason: null,
        shareReasonWithAttendee: false,
        expiredAt: null,
        cancelledAt: null,
        cancelReason: null,
        rescheduledAt: null,
        createdAt: now,
        updatedAt: now,
      };
      // The visit's statement, the booking's INSERT and the slot's take are written one after the other without
      // waiting (every id is made here), so they go out in one round trip. The place is taken last: the slot's row
      // lock is held for the rest of the transaction only (the events, and the visit's watchlist screening where the
      // tenant has a watchlist); a full slot rolls the booking and its visit back. The visit is deferred before the
      // INSERT, so a failure of its statement is the one reported (the INSERT would only see the transaction
      // aborted), and both steps have ended before the transaction does.
      const visit =
        visitForm &&
        this.visits.createForBooking(
          uow,
          tenant,
          { ...this.visitInput(type, b), booking_id: b.id },
          visitForm,
          b.visitId!,
        );
      if (visit) uow.defer(visit);
      uow.defer(this.repo.insert(uow.manager, b));
      const [, placed] = await allAnswered([
        visit,
        this.types.takeSlot(uow, tenant, b.bookingTypeId, b.startsAt, type.row.capacity),
      ] as const);
      if (!placed) throw slotTaken();
      await this.record(uow, tenant, form, b, t.events);
      return this.view(form, b, publishable ? 'attendee' : 'organisation');
    }, IS_RESPONSE);
  }

  /** The visit a booking becomes. */
  private visitInput(
    type: UsableType,
    b: Pick<
      BookingRow,
      | 'attendeeName'
      | 'attendeePhone'
      | 'attendeeEmail'
      | 'attendeeCompany'
      | 'hostId'
      | 'siteId'
      | 'startsAt'
      | 'endsAt'
      | 'customFields'
    >,
  ) {
    return {
      site_id: b.siteId,
      host_id: b.hostId,
      type: type.row.visitType,
      visitor: {
        name: b.attendeeName ?? '',
        phone: b.attendeePhone ?? '',
        email: b.attendeeEmail,
        company: b.attendeeCompany,
      },
      purpose: type.row.name,
      expected_at: b.startsAt.toISOString(),
      expected_until: b.endsAt.toISOString(),
      custom_fields: b.customFields,
    };
  }

  /** The booking locked in the caller's transaction, null when unknown (erasure of its attendee). */
  lock(uow: UnitOfWork, tenant: Tenant, id: string): Promise<BookingRow | null> {
    return this.repo.find(tenant, id, uow.manager, true);
  }

  async get(tenant: Tenant, id: string): Promise<BookingResponse> {
    const b = await this.repo.find(tenant, id);
    if (!b) throw ApiError.notFound(`Booking ${id}`);
    return this.view(await this.forms.current(tenant, 'visit'), b);
  }

  /** GET /v1/bookings: oldest first, filtered by type, status and slot start. */
  async page(tenant: Tenant, q: BookingsQuery): Promise<Page<BookingResponse>> {
    const starts = queryRange(q, 'start_from', 'start_to');
    const filter = {
      bookingTypeId: q.booking_type_id,
      status: q.status,
      startsFrom: starts.from,
      startsTo: starts.to,
    };
    const form = await this.forms.current(tenant, 'visit');
    return this.cursors.codec.createdPage(
      'bookings',
      tenant,
      q,
      (limit, after) => this.repo.list(tenant, filter, limit + 1, after),
      (b) => this.view(form, b),
    );
  }

  /**
   * One transition, under the booking's row lock (concurrent calls serialise; one wins). A pending booking past
   * its confirm_by is expired even if the expiry job has not reached it yet.
   */
  async act(
    tenant: Tenant,
    id: string,
    action: Exclude<BookingAction, 'expire'>,
    extra: { reason?: string | null; share?: boolean; start?: string } = {},
  ): Promise<BookingResponse> {
    const prepared = await this.prepare(tenant, id, action, extra.start);
    const outcome = await this.tx.run(async (uow) => {
      const b = await this.repo.find(tenant, id, uow.manager, true);
      if (!b) throw ApiError.notFound(`Booking ${id}`);
      if (b.status === 'pending' && b.confirmBy && b.confirmBy <= this.clock.now()) {
        await this.apply(uow, tenant, b, 'expire', bookingTransition(b.status, 'expire'), prepared);
        return { expired: true as const };
      }
      const t = bookingTransition(b.status, action);
      return { expired: false as const, view: await this.apply(uow, tenant, b, action, t, prepared, extra) };
    }, ACTED);
    if (outcome.expired)
      throw new ApiError('invalid_state', `Booking ${id} expired: it was not confirmed by its confirm_by.`);
    return outcome.view;
  }

  /**
   * What a transition reads, read before its transaction (so the transaction holds one pooled connection): the
   * visit form, and for a confirm the checked visit, for a reschedule the new slot. The transaction re-reads the
   * booking under its lock and the transition table decides; a booking changed meanwhile is refused there.
   */
  private async prepare(
    tenant: Tenant,
    id: string,
    action: BookingAction,
    start?: string,
  ): Promise<Prepared> {
    const form = await this.forms.current(tenant, 'visit');
    const b = await this.repo.find(tenant, id);
    if (!b || !BOOKING_TRANSITIONS[action].from.includes(b.status)) return { form };
    const type = await this.types.byId(tenant, b.bookingTypeId);
    if (action === 'confirm')
      return { form, type, visitForm: await this.visits.checkForBooking(tenant, this.visitInput(type, b)) };
    if (action === 'reschedule')
      return { form, type, slot: this.types.slotFor(type, new Date(start!), 'body.start') };
    return { form, type };
  }

  private async apply(
    uow: UnitOfWork,
    tenant: Tenant,
    b: BookingRow,
    action: BookingAction,
    t: BookingTransition,
    p: Prepared,
    extra: { reason?: string | null; share?: boolean } = {},
  ): Promise<BookingResponse> {
    // The booking moved on between `prepare` and its lock (another request): what was read no longer fits.
    if ((t.slot === 'move' && !p.slot) || (t.visit === 'create' && !p.visitForm))
      throw new ApiError(
        'conflict',
        `Booking ${b.id} changed while this request ran; read it again and retry.`,
      );
    const now = this.clock.now();
    const changes: Partial<BookingRow> = { status: t.to, updatedAt: now };
    const stamp = {
      confirmed_at: 'confirmedAt',
      declined_at: 'declinedAt',
      expired_at: 'expiredAt',
      cancelled_at: 'cancelledAt',
      rescheduled_at: 'rescheduledAt',
    } as const;
    for (const col of t.sets) changes[stamp[col]] = now;
    if (action === 'decline') {
      changes.declineReason = extra.reason ?? null;
      changes.shareReasonWithAttendee = extra.share ?? false;
    }
    if (action === 'cancel') changes.cancelReason = extra.reason ?? null;
    if (t.slot === 'release') await this.types.releaseSlot(uow, tenant, b.bookingTypeId, b.startsAt);
    if (t.slot === 'move') {
      const slot = p.slot!;
      if (slot.start.getTime() === b.startsAt.getTime())
        throw ApiError.validation([
          { location: 'body.start', message: 'is the slot the booking already has' },
        ]);
      if (!(await this.types.takeSlot(uow, tenant, b.bookingTypeId, slot.start, p.type!.row.capacity)))
        throw slotTaken();
      await this.types.releaseSlot(uow, tenant, b.bookingTypeId, b.startsAt);
      changes.startsAt = slot.start;
      changes.endsAt = slot.end;
    }
    const next: BookingRow = { ...b, ...changes };
    if (t.visit === 'create')
      next.visitId = changes.visitId = (
        await this.visits.createForBooking(
          uow,
          tenant,
          { ...this.visitInput(p.type!, next), booking_id: b.id },
          p.visitForm!,
        )
      ).id;
    if (t.visit === 'move' && b.visitId)
      await this.visits.moveForBooking(uow, tenant, b.visitId, next.startsAt, next.endsAt);
    if (t.visit === 'cancel' && b.visitId)
      await this.visits.cancelForBooking(uow, tenant, b.visitId, next.cancelReason);
    await this.repo.update(uow.manager, tenant, b.id, changes);
    await this.record(uow, tenant, p.form, next, t.events);
    if (action === 'decline') uow.afterCommit(() => this.tellDeclined(tenant, next, p.type?.zone ?? 'UTC'));
    return this.view(p.form, next);
  }

  /**
   * The attendee's message on decline: the slot in the site's local time (`zone`), the reason only when the
   * decliner chose to share it.
   */
  private async tellDeclined(tenant: Tenant, b: BookingRow, zone: string): Promise<void> {
    const when = localWhen(b.startsAt, zone);
    const reason = b.shareReasonWithAttendee && b.declineReason ? ` Reason: ${b.declineReason}` : '';
    await this.messages.send(tenant, ['email', 'sms'], {
      to: { email: b.attendeeEmail, phone: b.attendeePhone },
      subject: 'Your booking was declined',
      body: `Your booking for ${when} was declined.${reason}`,
      relatedId: b.id,
    });
  }

  /**
   * Test helper (POST /v1/test-helpers/bookings/{id}/expire): a pending booking expires now, as it would at its
   * confirm_by (slot freed, booking.expired); another status is `invalid_state`.
   */
  async expireNow(tenant: Tenant, id: string): Promise<BookingResponse> {
    const prepared = await this.prepare(tenant, id, 'expire');
    return this.tx.run(async (uow) => {
      const b = await this.repo.find(tenant, id, uow.manager, true);
      if (!b) throw ApiError.notFound(`Booking ${id}`);
      return this.apply(uow, tenant, b, 'expire', bookingTransition(b.status, 'expire'), prepared);
    }, IS_RESPONSE);
  }

  /** Expires pending bookings past confirm_by (slot freed, booking.expired); returns how many. Safe on N workers. */
  async expireDue(batch = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.tx.run(async (uow) => {
        const due = await this.repo.lockDueExpiries(uow.manager, this.clock.now(), batch);
        for (const b of due) {
          const tenant = { organisationId: b.organisationId, livemode: b.livemode };
          const form = await this.forms.current(tenant, 'visit', uow.manager);
          await this.apply(uow, tenant, b, 'expire', bookingTransition(b.status, 'expire'), { form });
        }
        return due.length;
      });
      total += n;
      if (n < batch) return total;
    }
  }
}
