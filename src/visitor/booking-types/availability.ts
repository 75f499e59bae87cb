import { DateTime } from 'luxon';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Opening windows per weekday, local `HH:mm` times in the site's time zone (end after start). */
export type WeeklyHours = Partial<Record<Weekday, { start: string; end: string }[]>>;

/** What slot generation needs of a booking type. */
export interface SlotRules {
  weeklyHours: WeeklyHours;
  closedDates: string[];
  durationMinutes: number;
  bufferMinutes: number;
}

export interface Slot {
  start: Date;
  end: Date;
  /** The start as the site's wall clock shows it, with its offset (`2026-03-30T09:00:00.000+01:00`). */
  local: string;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The slots of one local day (`date`, `yyyy-MM-dd`) in `zone`, in start order. Slots are laid out in wall-clock
 * time from each window's start, every duration + buffer minutes, while the slot fits in the window: a slot at
 * 09:00 stays at 09:00 local on both sides of a daylight-saving change. The time zone rules are luxon's (the
 * IANA database of the runtime); no offset arithmetic here. Two edges, on purpose:
 * - a wall-clock start that does not exist that day (the hour skipped when clocks go forward) is no slot;
 * - a wall-clock start that happens twice (the hour repeated when clocks go back) is one slot, at its first
 *   occurrence (the earlier offset).
 * A slot's end is its start plus the duration in elapsed time.
 */
export function slotsOfDay(rules: SlotRules, zone: string, date: string): Slot[] {
  const day = DateTime.fromISO(date, { zone });
  if (!day.isValid || rules.closedDates.includes(date)) return [];
  const windows = rules.weeklyHours[WEEKDAYS[day.weekday - 1]] ?? [];
  const step = rules.durationMinutes + rules.bufferMinutes;
  const slots: Slot[] = [];
  for (const w of windows) {
    const end = minutesOf(w.end);
    for (let m = minutesOf(w.start); m + rules.durationMinutes <= end; m += step) {
      const hour = Math.floor(m / 60);
      const minute = m % 60;
      const start = day.set({ hour, minute, second: 0, millisecond: 0 });
      // luxon moves a time inside a gap forward: that wall-clock time does not exist today.
      if (!start.isValid || start.hour !== hour || start.minute !== minute) continue;
      slots.push({
        start: start.toJSDate(),
        end: start.plus({ minutes: rules.durationMinutes }).toJSDate(),
        local: start.toISO()!,
      });
    }
  }
  return slots.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** The local dates from `from` to `to` inclusive (`yyyy-MM-dd`), in calendar order. */
export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  let d = DateTime.fromISO(from, { zone: 'UTC' });
  const last = DateTime.fromISO(to, { zone: 'UTC' });
  while (d <= last) {
    out.push(d.toISODate()!);
    d = d.plus({ days: 1 });
  }
  return out;
}

/** The local calendar date of `at` in `zone`. */
export const localDate = (at: Date, zone: string): string => DateTime.fromJSDate(at, { zone }).toISODate()!;

/** The most dates `slotAt` keeps per rules object (asked about or laid out); past it they are dropped. */
const DATES_KEPT = 512;
/**
 * The most days `slotAt` lays out in the process, all rules objects together, before it drops every kept day and
 * counts again (a day of 5-minute slots from overlapping windows is about 1,440 slots). `slotFor` asks it only about
 * starts within the type's horizon.
 */
const DAYS_LAID_OUT = 256;
/**
 * Dates `slotAt` was asked about, per rules object (a booking type as `ReferenceCache` keeps it is one object for
 * every request of its version): `null` once asked, the day's slots by start once asked again.
 */
let days = new WeakMap<SlotRules, Map<string, Map<number, Slot> | null>>();
let laidOut = 0;

/**
 * The slot starting exactly at `at`, or null: a slot of `slotsOfDay` for the local date of `at`. The first time a
 * rules object is asked about a date, the one wall-clock time is checked alone (`checkedSlotAt`); the second time,
 * the day is laid out with `slotsOfDay` and kept with the rules object (DATES_KEPT, DAYS_LAID_OUT). The hot path of
 * POST /v1/bookings: one time zone lookup per booking instead of about eight.
 */
export function slotAt(rules: SlotRules, zone: string, at: Date): Slot | null {
  const key = `${zone} ${localDate(at, zone)}`;
  let seen = days.get(rules);
  if (!seen) days.set(rules, (seen = new Map()));
  let day = seen.get(key);
  if (day === undefined) {
    if (seen.size >= DATES_KEPT) seen.clear();
    seen.set(key, null);
    return checkedSlotAt(rules, zone, at);
  }
  if (day === null) {
    if (++laidOut > DAYS_LAID_OUT) {
      laidOut = 1;
      days = new WeakMap([[rules, (seen = new Map())]]);
    }
    day = new Map(slotsOfDay(rules, zone, key.slice(zone.length + 1)).map((s) => [s.start.getTime(), s]));
    seen.set(key, day);
  }
  const slot = day.get(at.getTime());
  return slot ? { start: at, end: new Date(slot.end.getTime()), local: slot.local } : null;
}

/**
 * The slot starting exactly at `at`, or null: the same rules as `slotsOfDay` (its window, step and DST edges),
 * checked for the one wall-clock time instead of laying out the whole day.
 */
export function checkedSlotAt(rules: SlotRules, zone: string, at: Date): Slot | null {
  const local = DateTime.fromJSDate(at, { zone });
  const date = local.toISODate()!;
  if (local.second || local.millisecond || rules.closedDates.includes(date)) return null;
  const m = local.hour * 60 + local.minute;
  const step = rules.durationMinutes + rules.bufferMinutes;
  const fits = (rules.weeklyHours[WEEKDAYS[local.weekday - 1]] ?? []).some(
    (w) =>
      m >= minutesOf(w.start) &&
      m + rules.durationMinutes <= minutesOf(w.end) &&
      (m - minutesOf(w.start)) % step === 0,
  );
  if (!fits) return null;
  // As laid out from the day's start: a repeated wall-clock time is a slot at its first occurrence only.
  const start = DateTime.fromISO(date, { zone }).set({ hour: local.hour, minute: local.minute });
  if (start.toMillis() !== at.getTime()) return null;
  return {
    start: at,
    end: start.plus({ minutes: rules.durationMinutes }).toJSDate(),
    local: start.toISO()!,
  };
}

/** A plain calendar date `yyyy-MM-dd` that exists. */
export const isCalendarDate = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && DateTime.fromISO(v, { zone: 'UTC' }).isValid;

/** Whole days from `from` to `to` (both `yyyy-MM-dd`). */
export const daysBetween = (from: string, to: string): number =>
  DateTime.fromISO(to, { zone: 'UTC' }).diff(DateTime.fromISO(from, { zone: 'UTC' }), 'days').days;

/** `date` plus `days` (`yyyy-MM-dd`). */
export const addDays = (date: string, days: number): string =>
  DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate()!;
