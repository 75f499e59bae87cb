import { isE164 } from './phone';

describe('E.164 phone numbers', () => {
  it.each(['+233244123456', '+14155552671', '+442071838750'])('accepts %s', (n) =>
    expect(isE164(n)).toBe(true),
  );
  it.each(['0244123456', '+2330244', '+233 24 412 3456', '+1415555267', 233244123456, '', '+00000000'])(
    'refuses %s',
    (n) => expect(isE164(n)).toBe(false),
  );
});
