import { checkedSlotAt, Slot, slotAt, slotsOfDay, SlotRules } from './availability';

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
    const listed = slotsOfDay(rules, zone, date);
    const from = Date.parse(`${date}T00:00:00Z`) - 86_400_000;
    // The one-time check on every minute, and slotAt asked about each minute three times, with rules of its own: the
    // first minute asked of each date is answered by the one-time check, every other answer by the day it laid out.
    const own = { ...rules };
    const found = { checked: [] as Slot[], first: [] as Slot[], again: [] as Slot[] };
    for (let t = from; t < from + 3 * 86_400_000; t += 60_000) {
      const checked = checkedSlotAt(rules, zone, new Date(t));
      const answers = [0, 1, 2].map(() => slotAt(own, zone, new Date(t)));
      if (checked?.local.startsWith(date)) found.checked.push(checked);
      if (answers[0]?.local.startsWith(date)) found.first.push(answers[0]);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      if (answers[2]?.local.startsWith(date)) found.again.push(answers[2]);
    }
    expect(found.checked).toEqual(listed);
    expect(found.first).toEqual(listed);
    expect(found.again).toEqual(listed);
  });
});

describe('slotAt past its bounds', () => {
  const rules: SlotRules = {
    weeklyHours: { mon: [{ start: '09:00', end: '12:00' }], tue: [{ start: '09:00', end: '12:00' }] },
    closedDates: [],
    durationMinutes: 30,
    bufferMinutes: 0,
  };
  it('answers as slotsOfDay after dropping what it kept (1,500 types laying out a day each, 600 dates of one)', () => {
    const zone = 'Europe/London';
    const at = new Date('2027-03-29T08:30:00Z'); // Monday 09:30 BST
    const own = { ...rules };
    const expected = slotsOfDay(rules, zone, '2027-03-29').find((s) => s.start.getTime() === at.getTime());
    expect(expected).toBeDefined();
    const ask = (r: SlotRules, t: Date) => [slotAt(r, zone, t), slotAt(r, zone, t)][1];
    expect(ask(own, at)).toEqual(expected);
    for (let i = 0; i < 1_500; i++) expect(ask({ ...rules }, at)).toEqual(expected);
    for (let d = 0; d < 600; d++) ask(own, new Date(at.getTime() + (d + 1) * 7 * 86_400_000));
    expect(ask(own, at)).toEqual(expected);
    expect(ask(own, new Date(at.getTime() + 60_000))).toBeNull();
  });
});
