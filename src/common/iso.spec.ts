import { iso, isoOrNull } from './iso';

describe('public timestamps', () => {
  it('writes a Date as ISO 8601 in UTC with milliseconds', () => {
    expect(iso(new Date(Date.UTC(2026, 10, 24, 13, 5, 9, 7)))).toBe('2026-11-24T13:05:09.007Z');
  });

  it('parses a string first (a value computed in SQL as text)', () => {
    expect(isoOrNull('2026-11-24 15:05:09.5+02')).toBe('2026-11-24T13:05:09.500Z');
  });

  it('keeps null', () => {
    expect(isoOrNull(null)).toBeNull();
  });
});

describe('public timestamps already in ISO form', () => {
  it('keeps text Date#toISOString would write as it is', () => {
    expect(iso('2026-11-24T13:05:09.007Z')).toBe('2026-11-24T13:05:09.007Z');
  });

  it('normalises any other ISO 8601 text (JSON timestamps: microseconds, an offset)', () => {
    expect(iso('2026-11-24T15:05:09.007123+02:00')).toBe('2026-11-24T13:05:09.007Z');
    expect(iso('2026-11-24T13:05:09Z')).toBe('2026-11-24T13:05:09.000Z');
  });
});
