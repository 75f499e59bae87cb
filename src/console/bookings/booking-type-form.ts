import { ApiError, FieldError } from '../../common/errors/api-error';
import { ApiValidationPipe } from '../../common/errors/validation.pipe';
import { WEEKDAYS } from '../../visitor/booking-types/availability';
import { SaveBookingTypeBody } from '../../visitor/booking-types/dto/booking-type.request';
import type { BookingTypeResponse } from '../../visitor/booking-types/dto/booking-type.response';
import type { Role } from '../../visitor/platform/scopes';

/**
 * Who creates, edits and publishes booking types in the console (the page's forms and `/console/booking-types`):
 * Owners and Admins. Members read types and confirm or decline bookings (`bookings:write`).
 */
export const BOOKING_TYPE_EDITORS: Role[] = ['owner', 'admin'];

export type FormBody = Record<string, string | undefined>;

/** The form's values as the template shows them (text as typed, so a refused form comes back as it was). */
export interface BookingTypeValues {
  name: string;
  visit_type: string;
  site_id: string;
  hosts: string[];
  duration_minutes: string;
  buffer_minutes: string;
  capacity: string;
  requires_confirmation: boolean;
  confirmation_window_hours: string;
  weekly: Record<string, string>;
  closed_dates: string;
  horizon_days: string;
  min_notice_minutes: string;
  active: boolean;
}

const DAY_WORDS: Record<string, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

export const weekdayFields = (values: BookingTypeValues) =>
  WEEKDAYS.map((d) => ({ day: d, words: DAY_WORDS[d], value: values.weekly[d] ?? '' }));

/** An empty form: the defaults of SaveBookingTypeBody (one place, 30 minutes, taking bookings). */
export function blankValues(): BookingTypeValues {
  return {
    name: '',
    visit_type: 'meeting',
    site_id: '',
    hosts: [],
    duration_minutes: '30',
    buffer_minutes: '0',
    capacity: '1',
    requires_confirmation: false,
    confirmation_window_hours: '24',
    weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, ['sat', 'sun'].includes(d) ? '' : '09:00-17:00'])),
    closed_dates: '',
    horizon_days: '60',
    min_notice_minutes: '0',
    active: true,
  };
}

/** A saved type as the edit form shows it. */
export function valuesOf(t: BookingTypeResponse): BookingTypeValues {
  const weekly = t.availability.weekly_hours as unknown as Record<string, { start: string; end: string }[]>;
  return {
    name: t.name,
    visit_type: t.visit_type,
    site_id: t.site_id,
    hosts: t.host_ids,
    duration_minutes: String(t.duration_minutes),
    buffer_minutes: String(t.buffer_minutes),
    capacity: String(t.capacity),
    requires_confirmation: t.requires_confirmation,
    confirmation_window_hours: String(t.confirmation_window_hours),
    weekly: Object.fromEntries(
      WEEKDAYS.map((d) => [d, (weekly[d] ?? []).map((w) => `${w.start}-${w.end}`).join(', ')]),
    ),
    closed_dates: t.availability.closed_dates.join(', '),
    horizon_days: String(t.horizon_days),
    min_notice_minutes: String(t.min_notice_minutes),
    active: t.active,
  };
}

const text = (v: string | undefined) => (v ?? '').trim();

/** The posted form as typed. Hosts are checkboxes `host.<person id>`; booleans are checkboxes. */
export function postedValues(body: FormBody): BookingTypeValues {
  return {
    name: text(body.name),
    visit_type: text(body.visit_type),
    site_id: text(body.site_id),
    hosts: Object.keys(body)
      .filter((k) => k.startsWith('host.') && body[k] === 'on')
      .map((k) => k.slice(5)),
    duration_minutes: text(body.duration_minutes),
    buffer_minutes: text(body.buffer_minutes),
    capacity: text(body.capacity),
    requires_confirmation: body.requires_confirmation === 'on',
    confirmation_window_hours: text(body.confirmation_window_hours),
    weekly: Object.fromEntries(WEEKDAYS.map((d) => [d, text(body[`hours.${d}`])])),
    closed_dates: text(body.closed_dates),
    horizon_days: text(body.horizon_days),
    min_notice_minutes: text(body.min_notice_minutes),
    active: body.active === 'on',
  };
}

/** A whole number as typed becomes a number; anything else is left as text for the DTO's rule to refuse. */
const whole = (v: string): number | string | undefined =>
  v === '' ? undefined : /^\d+$/.test(v) ? Number(v) : v;

const WINDOW = /^(\d{1,2}:\d{2})\s*[-–]\s*(\d{1,2}:\d{2})$/;

/**
 * The body `POST|PUT /console/booking-types` would receive for this form, checked by the same DTO rules
 * (`ApiValidationPipe` over `SaveBookingTypeBody`); the service then checks references and windows as it does for
 * the JSON endpoints. Opening hours are written per weekday as `09:00-12:00, 13:00-17:00`; closed dates as
 * `2026-12-25, 2026-12-26`. `validation_failed` lists every problem at once.
 */
export async function bodyOf(values: BookingTypeValues, isPublic: boolean): Promise<SaveBookingTypeBody> {
  const errors: FieldError[] = [];
  const weekly: Record<string, { start: string; end: string }[]> = {};
  for (const d of WEEKDAYS) {
    const windows = values.weekly[d]
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean);
    weekly[d] = [];
    for (const w of windows) {
      const m = WINDOW.exec(w);
      if (!m) {
        errors.push({
          location: `body.weekly_hours.${d}`,
          message: 'write each opening window as 09:00-12:00, separated by commas',
        });
        break;
      }
      weekly[d].push({ start: m[1].padStart(5, '0'), end: m[2].padStart(5, '0') });
    }
  }
  const raw = {
    name: values.name,
    visit_type: values.visit_type,
    site_id: values.site_id,
    host_ids: values.hosts,
    duration_minutes: whole(values.duration_minutes),
    buffer_minutes: whole(values.buffer_minutes),
    capacity: whole(values.capacity),
    requires_confirmation: values.requires_confirmation,
    confirmation_window_hours: whole(values.confirmation_window_hours),
    weekly_hours: weekly,
    closed_dates: values.closed_dates
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter(Boolean),
    horizon_days: whole(values.horizon_days),
    min_notice_minutes: whole(values.min_notice_minutes),
    public: isPublic,
    active: values.active,
  };
  let body: SaveBookingTypeBody | null = null;
  try {
    body = (await new ApiValidationPipe().transform(raw, {
      type: 'body',
      metatype: SaveBookingTypeBody,
    })) as SaveBookingTypeBody;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    errors.push(...e.errors);
  }
  if (errors.length || !body) throw ApiError.validation(errors);
  return body;
}

/** The problems of a refused save as lines for the form (`field: message`), or null when it is not the form's. */
export function problemsOf(e: unknown): string[] | null {
  if (!(e instanceof ApiError) || !['validation_failed', 'not_found', 'conflict'].includes(e.code))
    return null;
  return e.errors.length
    ? e.errors.map((x) => {
        const field = x.location.replace(/^body\./, '').replace(/^host_ids(\.\d+)?$/, 'hosts');
        // class-validator's own messages start with the property's name: said once.
        const name = x.location.split('.').at(-1)!;
        return `${field}: ${x.message.startsWith(name + ' ') ? x.message.slice(name.length + 1) : x.message}`;
      })
    : [e.detail];
}
