import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CreateBookingBody } from '../../visitor/bookings/dto/booking.request';
import { CreateVisitBody, UpdateVisitBody } from '../../visitor/visits/dto/visit.request';
import { passesForSure } from './compiled-rules';

/** The pipe's options (ApiValidationPipe). */
const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  validationError: { target: false, value: true },
};

const visit = {
  site_id: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6',
  host_id: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7',
  type: 'meeting',
  visitor: { name: 'Kofi Boateng', phone: '+233241234567' },
};

/** Each body with one part changed: the valid ones, and each way to break them that class-validator refuses. */
const variants: [new () => object, Record<string, unknown>][] = [
  [CreateVisitBody, visit],
  [CreateVisitBody, { ...visit, purpose: 'Audit', pass_channels: ['sms', 'email'], custom_fields: { a: 1 } }],
  [CreateVisitBody, { ...visit, gate_id: null, expected_at: '2026-11-27T09:00:00Z' }],
  [CreateVisitBody, { ...visit, visitor: { ...visit.visitor, email: 'kofi@example.com', company: null } }],
  [CreateVisitBody, { ...visit, extra: 1 }],
  [CreateVisitBody, { ...visit, visitor: { ...visit.visitor, extra: 1 } }],
  [CreateVisitBody, { ...visit, visitor: { ...visit.visitor, phone: '0241234567' } }],
  [CreateVisitBody, { ...visit, visitor: { name: 'Kofi' } }],
  [CreateVisitBody, { ...visit, visitor: null }],
  [CreateVisitBody, { ...visit, visitor: 'Kofi' }],
  [CreateVisitBody, { ...visit, visitor: [visit.visitor] }],
  [CreateVisitBody, { ...visit, site_id: 'gate_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }],
  [CreateVisitBody, { ...visit, site_id: undefined }],
  [CreateVisitBody, { ...visit, type: 'x'.repeat(41) }],
  [CreateVisitBody, { ...visit, pass_channels: ['fax'] }],
  [CreateVisitBody, { ...visit, pass_channels: [] }],
  [CreateVisitBody, { ...visit, pass_channels: 'sms' }],
  [CreateVisitBody, { ...visit, expected_at: 'tomorrow' }],
  [CreateVisitBody, { ...visit, custom_fields: [] }],
  [CreateVisitBody, { ...visit, purpose: null }],
  [UpdateVisitBody, {}],
  [UpdateVisitBody, { site_id: null }],
  [UpdateVisitBody, { host_id: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7', expected_at: null }],
  [
    CreateBookingBody,
    {
      booking_type_id: 'btype_3kT9qLm4Rx7Vd2Wn8YsBc1',
      start: '2026-11-28T09:00:00Z',
      attendee: visit.visitor,
    },
  ],
  [CreateBookingBody, { booking_type_id: 'btype_3kT9qLm4Rx7Vd2Wn8YsBc1', start: '2026-11-28T09:00:00Z' }],
  [
    CreateBookingBody,
    { booking_type_id: 'btype_3kT9qLm4Rx7Vd2Wn8YsBc1', start: 'soon', attendee: visit.visitor, host_id: 1 },
  ],
];

describe('passesForSure', () => {
  it.each(variants.map(([cls, body], i) => [i, cls.name, cls, body] as const))(
    'agrees with class-validator on body %i (%s): "passes for sure" only where it finds no error',
    async (_i, _name, cls, body) => {
      const instance = plainToInstance(cls, structuredClone(body)) as object;
      const errors = await validate(instance, OPTIONS);
      const sure = passesForSure(plainToInstance(cls, structuredClone(body)) as object);
      expect(sure).toBe(errors.length === 0);
    },
  );

  it('leaves a plain object, a class without rules and an array to class-validator', () => {
    expect(passesForSure({ site_id: 'x' })).toBe(false);
    expect(passesForSure(new (class NoRules {})())).toBe(false);
    expect(passesForSure([])).toBe(false);
  });
});
