import { sessionCookie } from '../auth/session.controller';
import { modeCookie } from '../console-mode';
import { CONSOLE_NAV, consoleRoles, landingFor, navFor, safeConsolePath } from './console-nav';
import { pagerLinks } from './pager';
import { localDay, when } from './overview.page';

describe('console nav table', () => {
  it('names every page path of issue 31 once', () => {
    expect(CONSOLE_NAV.map((e) => e.path).sort()).toEqual(
      [
        '/console',
        '/console/keys',
        '/console/team',
        '/console/visits',
        '/console/bookings',
        '/console/desk',
        '/console/attendance',
        '/console/visit-types',
        '/console/webhooks',
        '/console/outbox',
        '/console/audit',
        '/console/apps',
        '/console/requests',
      ].sort(),
    );
  });

  it('shows each role only the built pages it may open, and lands nobody on a page they may not open', () => {
    expect(navFor('owner', '/console').map((n) => n.path)).toContain('/console/apps');
    expect(navFor('member', '/console').map((n) => n.path)).not.toContain('/console/apps');
    expect(navFor('owner', '/console/apps/new').find((n) => n.current)?.path).toBe('/console/apps');
    expect(navFor('owner', '/console?mode=test').find((n) => n.current)?.path).toBe('/console');
    // a page outside the table (the account page) marks no link, not the overview
    expect(navFor('owner', '/console/account').find((n) => n.current)).toBeUndefined();
    expect(landingFor('member', '/console/apps')).toBe('/console');
    expect(landingFor('owner', '/console/apps?x=1')).toBe('/console/apps?x=1');
    expect(landingFor('support', null)).toBe('/console');
    expect(() => consoleRoles('/console/nope')).toThrow(/not in CONSOLE_NAV/);
  });

  it('accepts only same-origin console paths as a next or back address', () => {
    expect(safeConsolePath('/console/visits?status=expected')).toBe('/console/visits?status=expected');
    for (const bad of [
      '//evil.example',
      'https://evil.example/console',
      '/consolex',
      '/console//evil',
      '/console/<x>',
      7,
    ])
      expect(safeConsolePath(bad)).toBeNull();
  });
});

describe('pager links', () => {
  it('keeps the filters, walks forward with the cursor and back with the trail', () => {
    const first = pagerLinks(
      '/console/visits',
      { status: 'expected', limit: '25' },
      { next_cursor: 'c1', has_more: true },
    );
    expect(first).toEqual({
      next: '/console/visits?status=expected&limit=25&cursor=c1',
      previous: null,
      first: null,
    });
    const second = pagerLinks(
      '/console/visits',
      { status: 'expected', cursor: 'c1' },
      { next_cursor: 'c2', has_more: true },
    );
    expect(second.next).toBe('/console/visits?status=expected&cursor=c2&trail=c1');
    expect(second.previous).toBe('/console/visits?status=expected');
    const third = pagerLinks(
      '/console/visits',
      { status: 'expected', cursor: 'c2', trail: 'c1' },
      { next_cursor: null, has_more: false },
    );
    expect(third).toEqual({
      next: null,
      previous: '/console/visits?status=expected&cursor=c1',
      first: '/console/visits?status=expected',
    });
  });
});

describe('cookies and days', () => {
  it('marks the session and mode cookies Secure only for an HTTPS APP_URL, always HttpOnly and SameSite=Lax', () => {
    expect(sessionCookie('t', true)).toMatch(/HttpOnly; Secure; SameSite=Lax/);
    expect(sessionCookie('t', false)).not.toContain('Secure');
    expect(modeCookie('test', false)).toMatch(/^gh_mode=test; Path=\/console; HttpOnly; SameSite=Lax/);
  });

  it("finds the organisation's local day", () => {
    const d = localDay(new Date('2026-11-26T23:30:00Z'), 'Africa/Nairobi');
    expect(d.label).toBe('2026-11-27');
    expect(d.from.toISOString()).toBe('2026-11-26T21:00:00.000Z');
    expect(d.to.toISOString()).toBe('2026-11-27T21:00:00.000Z');
  });
});

describe('when', () => {
  it('writes an instant to the minute in UTC, the same whether given as an ISO string, another offset or a Date', () => {
    for (const v of [
      '2026-11-26T09:30:59.999Z',
      '2026-11-26T10:30:59+01:00',
      new Date('2026-11-26T09:30:59.999Z'),
    ])
      expect(when(v)).toBe('2026-11-26 09:30 UTC');
    expect(when('2026-01-01T00:00Z')).toBe('2026-01-01 00:00 UTC');
    expect(when(null)).toBe('never');
  });
});
