/**
 * A moment as a message to a visitor or attendee states it: the wall clock of the site's time zone, such as
 * `2 Mar 2026, 09:00` (never UTC, which the reader would have to convert).
 */
export function localWhen(at: Date, timeZone: string): string {
  return at.toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
}
