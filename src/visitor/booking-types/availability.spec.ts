import { slotAt, slotsOfDay, SlotRules } from './availability';

/** `slotAt` (the booking check) agrees with `slotsOfDay` (availability) on every minute of DST days and a plain day. */
describe('slotAt agrees with slotsOfDay', () => {
  const rules: SlotRules = {
    weeklyHours: {
      sun: [
        { start: '00:00', end: '03:00' },
        { start: '09:00', end: '12:00' },
      ],
      mon: [{ start: '08:15', end: '17:00' }],
    },
    closedDates: ['2027-04-04'],
    durationMinutes: 25,
    bufferMinutes: 5,
  };
  it.each([
    ['Europe/London', '2027-03-28'],
    ['Europe/London', '2027-10-31'],
    ['Europe/London', '2027-03-29'],
    ['Europe/London', '2027-04-04'],
    ['America/New_York', '2027-03-14'],
    ['Africa/Accra', '2027-03-28'],
  ])('%s %s', (zone, date) => {
    const listed = slotsOfDay(rules, zone, date).map((s) => s.start.getTime());
    const from = Date.parse(`${date}T00:00:00Z`) - 86_400_000;
    const found: number[] = [];
    for (let t = from; t < from + 3 * 86_400_000; t += 60_000) {
      const slot = slotAt(rules, zone, new Date(t));
      if (slot && slot.local.startsWith(date)) found.push(t);
    }
    expect(found).toEqual(listed);
  });
});
