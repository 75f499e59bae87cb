import { ApiError } from '../../common/errors/api-error';
import { blankValues, bodyOf, postedValues, problemsOf } from './booking-type-form';

describe('booking type form', () => {
  const posted = (over: Record<string, string>) =>
    postedValues({
      name: ' Site tour ',
      site_id: 'site_abc',
      visit_type: 'meeting',
      'host.person_a': 'on',
      'host.person_b': 'off',
      duration_minutes: '45',
      capacity: '3',
      requires_confirmation: 'on',
      confirmation_window_hours: '12',
      'hours.mon': '9:00-12:00, 13:00 – 17:30',
      'hours.sat': '',
      closed_dates: '2026-12-25, 2026-12-26',
      active: 'on',
      ...over,
    });

  it('turns the typed form into the body the JSON endpoint takes', async () => {
    const body = await bodyOf(posted({}), true);
    expect({ ...body }).toMatchObject({
      name: 'Site tour',
      host_ids: ['person_a'],
      duration_minutes: 45,
      capacity: 3,
      requires_confirmation: true,
      confirmation_window_hours: 12,
      closed_dates: ['2026-12-25', '2026-12-26'],
      public: true,
      active: true,
    });
    expect(body.weekly_hours.mon).toEqual([
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:30' },
    ]);
    expect(body.weekly_hours.sat).toEqual([]);
    expect(body.buffer_minutes).toBeUndefined();
  });

  it('refuses every problem at once, in the words of the form', async () => {
    const e = await bodyOf(
      posted({ 'hours.tue': 'mornings', capacity: 'two', duration_minutes: '' }),
      false,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(problemsOf(e)).toEqual(
      expect.arrayContaining([
        'weekly_hours.tue: write each opening window as 09:00-12:00, separated by commas',
        'duration_minutes: is required',
        expect.stringMatching(/^capacity: must be an integer/),
      ]),
    );
    expect(problemsOf(new Error('x'))).toBeNull();
  });

  it('starts a new type on weekdays 09:00-17:00, taking bookings', () => {
    const v = blankValues();
    expect(v.weekly.mon).toBe('09:00-17:00');
    expect(v.weekly.sun).toBe('');
    expect(v.active).toBe(true);
  });
});
