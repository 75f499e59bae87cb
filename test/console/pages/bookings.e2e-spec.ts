import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../../src/visitor/accounts/accounts.service';
import { PASSWORD } from '../../support/oauth-fixtures';
import { until } from '../../support/until';
import { bootConsole, ConsoleUnderTest, judgePage, signIn } from './console-browser';

interface Booking {
  id: string;
  status: string;
  visit_id: string | null;
  decline_reason: string | null;
  share_reason_with_attendee: boolean;
}

/**
 * `/console/bookings` and `/console/bookings/types` in a real browser (issue 31 page 5): the demo owner adds a
 * booking type in test mode (bad input re-rendered with its problems and the request id), edits it and publishes
 * it, which /v1 then shows; two bookings made through /v1 wait as pending; one is declined with a reason shared with
 * the attendee (their message in the test outbox says it), the other confirmed (a visit is linked); a stale tab's
 * confirm is refused with its request id; live mode shows none of it; a member decides bookings but is refused
 * booking-type changes on a direct POST, and support staff are refused the page and its actions.
 */
describe('console bookings pages in a real browser', () => {
  let c: ConsoleUnderTest;
  const operator = { type: 'operator' as const, id: 'test' };

  beforeAll(async () => {
    c = await bootConsole();
    const accounts = c.t.app.get(AccountsService);
    await accounts.create(
      c.demo.organisation_id,
      { email: 'member@demo.gatehouse.test', name: 'Demo Member', role: 'member', password: PASSWORD },
      operator,
    );
    await accounts.create(
      c.demo.organisation_id,
      { email: 'support@demo.gatehouse.test', name: 'Demo Support', role: 'support', password: PASSWORD },
      operator,
    );
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  const v1 = async <T>(path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${c.t.baseUrl}/v1${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${c.demo.key}`,
        'content-type': 'application/json',
        ...(init.method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  /** The page's cookies and a CSRF token of its forms, for a POST made outside the page. */
  const session = async (page: Page) => ({
    cookie: (await page.context().cookies()).map((x) => `${x.name}=${x.value}`).join('; '),
    csrf: (await page.locator('input[name="_csrf"]').first().getAttribute('value'))!,
  });
  const post = (path: string, s: { cookie: string }, form: Record<string, string>) =>
    fetch(c.t.baseUrl + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  let typeId: string;
  /** A booking of the type through /v1 with the demo's test key (its type needs confirmation: pending). */
  const book = async (name: string, phone: string, start: string) => {
    const res = await v1<Booking>('/bookings', {
      method: 'POST',
      body: {
        booking_type_id: typeId,
        start,
        attendee: { name, phone, email: `${phone.slice(1)}@example.test` },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
    return res.body;
  };

  let declined: Booking;
  let confirmed: Booking;

  it('adds, edits and publishes a booking type in test mode, as /v1 then shows it', async () => {
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console/bookings?mode=test');
    expect(new URL(page.url()).pathname).toBe('/console/bookings');
    expect(await page.title()).toBe('Bookings · Demo Front Door · Gatehouse');
    expect(await page.locator('nav.console-nav a[aria-current="page"]').textContent()).toBe('Bookings');
    await page.locator('.test-banner').waitFor();
    await page.locator('#bookings-none').waitFor();
    await judgePage(page, 'bookings-empty');

    await page.getByRole('link', { name: 'Booking types' }).click();
    await page.waitForURL(/\/console\/bookings\/types\?mode=test/);
    expect(await page.title()).toBe('Booking types · Demo Front Door · Gatehouse');
    expect(await page.locator('nav.console-nav a[aria-current="page"]').textContent()).toBe('Bookings');
    await page.locator('#types-none').waitFor();
    await judgePage(page, 'booking-types');

    // Bad input: every problem at once, the form as typed, the request id.
    await page.getByLabel('Name', { exact: true }).fill('Site tour');
    await page.getByLabel('Ama Mensah').check();
    await page.getByLabel('Bookings wait for someone to confirm or decline them').check();
    await page.getByLabel('Monday').fill('9 until noon');
    await page.getByLabel('Length of a slot, minutes').fill('2');
    await page.getByRole('button', { name: 'Add the booking type' }).click();
    await page.locator('#type-errors').waitFor();
    const errors = await page.locator('#type-errors li').allTextContents();
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^weekly_hours\.mon: write each opening window as 09:00-12:00/),
        expect.stringMatching(/^duration_minutes: /),
      ]),
    );
    await expect(page.locator('.notice[role="alert"] code').textContent()).resolves.toMatch(/^req_/);
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Site tour');
    expect(await page.getByLabel('Ama Mensah').isChecked()).toBe(true);
    await judgePage(page, 'booking-types-errors');
    expect((await v1<{ data: unknown[] }>('/booking-types')).body.data).toEqual([]);

    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'])
      await page.getByLabel(day).fill('09:00-12:00');
    await page.getByLabel('Length of a slot, minutes').fill('60');
    await page.getByRole('button', { name: 'Add the booking type' }).click();
    await page.getByText('Booking type Site tour added (not published).').waitFor();
    const row = page.locator('#types tbody tr').filter({ hasText: 'Site tour' });
    typeId = (await row.getAttribute('data-type'))!;
    expect(typeId).toMatch(/^btype_/);
    await expect(row.locator('[data-cell="public"]').textContent()).resolves.toBe('Not published');
    await expect(row.locator('[data-cell="confirmation"]').textContent()).resolves.toBe(
      'Confirmed by hand within 24 h',
    );

    await page.getByRole('link', { name: 'Edit Site tour' }).click();
    await page.waitForURL(new RegExp(`/console/bookings/types/${typeId}\\?mode=test`));
    await expect(page.getByLabel('Monday').inputValue()).resolves.toBe('09:00-12:00');
    await page.getByLabel('Name', { exact: true }).fill('Site tour with safety briefing');
    await page.getByLabel('Confirm within, hours').fill('48');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe(
      'Site tour with safety briefing',
    );
    await judgePage(page, 'booking-type-edit');
    type TypeView = { name: string; public: boolean; public_form: unknown };
    let type = await v1<TypeView>(`/booking-types/${typeId}`);
    expect(type.body).toMatchObject({
      name: 'Site tour with safety briefing',
      confirmation_window_hours: 48,
      requires_confirmation: true,
      public: false,
      public_form: null,
    });

    await page.getByRole('link', { name: 'All booking types' }).click();
    await page.getByRole('button', { name: 'Publish Site tour with safety briefing' }).click();
    await page.getByText('Booking type published', { exact: false }).waitFor();
    await expect(
      page.locator(`tr[data-type="${typeId}"] [data-cell="public"]`).textContent(),
    ).resolves.toMatch(/^Published/);
    await judgePage(page, 'booking-types-published');
    type = await v1<TypeView>(`/booking-types/${typeId}`);
    expect(type.body.public).toBe(true);
    expect(type.body.public_form).not.toBeNull();

    // Every change is audited with its request.
    const audit = await c.t.app
      .get(DataSource)
      .query(
        `SELECT action, actor_type, livemode, request_id FROM visitor.audit_event WHERE target_id = $1 ORDER BY created_at`,
        [typeId],
      );
    expect(audit).toEqual(
      ['booking_type.created', 'booking_type.saved', 'booking_type.published'].map((action) => ({
        action,
        actor_type: 'console_account',
        livemode: false,
        request_id: expect.stringMatching(/^req_/),
      })),
    );
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('lists /v1 pending bookings, declines one with a shared reason and confirms the other', async () => {
    const slots = await v1<{ data: { start: string }[] }>(`/booking-types/${typeId}/availability`);
    expect(slots.body.data.length).toBeGreaterThanOrEqual(2);
    declined = await book('Abena Declined', '+233244555301', slots.body.data[0].start);
    confirmed = await book('Kofi Confirmed', '+233244555302', slots.body.data[1].start);

    const { page, problems } = await signIn(
      c,
      c.demo.email,
      c.demo.password,
      '/console/bookings?mode=test&status=pending',
    );
    for (const b of [declined, confirmed])
      await expect(
        page.locator(`tr[data-booking="${b.id}"] [data-cell="status"]`).textContent(),
      ).resolves.toBe('Pending');
    await expect(page.getByLabel('Status').inputValue()).resolves.toBe('pending');
    await judgePage(page, 'bookings-pending');
    // A second tab, still showing both as pending.
    const stale = await page.context().newPage();
    await stale.goto(`${c.t.baseUrl}/console/bookings?mode=test&status=pending`);

    await page.getByRole('link', { name: 'Decline the booking of Abena Declined' }).click();
    await page.getByRole('heading', { name: 'Decline the booking of Abena Declined?' }).waitFor();
    await judgePage(page, 'booking-decline');
    await page.getByRole('textbox', { name: /^Reason/ }).fill('The site is closed for an audit that day');
    await page.getByLabel('Tell the attendee the reason (it is in their message)').check();
    await page.getByRole('button', { name: 'Decline the booking' }).click();
    await page.getByText('Booking declined; the attendee is told.').waitFor();
    // Back on the list as it was (pending only): the declined booking has left it.
    expect(new URL(page.url()).searchParams.get('status')).toBe('pending');
    expect(await page.locator(`tr[data-booking="${declined.id}"]`).count()).toBe(0);

    await page.getByRole('button', { name: 'Confirm the booking of Kofi Confirmed' }).click();
    await page.getByText('Booking confirmed: its visit is created.').waitFor();
    await page.locator('#bookings-none').waitFor();

    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Filter' }).click();
    const declinedRow = page.locator(`tr[data-booking="${declined.id}"]`);
    await expect(declinedRow.locator('[data-cell="status"]').textContent()).resolves.toBe('Declined');
    await expect(declinedRow.locator('[data-cell="reason"]').textContent()).resolves.toBe(
      'Reason: The site is closed for an audit that day (told to the attendee)',
    );
    expect(await declinedRow.locator('button, a').count()).toBe(0);
    const confirmedRow = page.locator(`tr[data-booking="${confirmed.id}"]`);
    await expect(confirmedRow.locator('[data-cell="status"]').textContent()).resolves.toBe('Confirmed');
    await judgePage(page, 'bookings-decided');

    // The same state machine as /v1.
    const d = (await v1<Booking>(`/bookings/${declined.id}`)).body;
    expect(d).toMatchObject({
      status: 'declined',
      decline_reason: 'The site is closed for an audit that day',
      share_reason_with_attendee: true,
      visit_id: null,
    });
    const k = (await v1<Booking>(`/bookings/${confirmed.id}`)).body;
    expect(k.status).toBe('confirmed');
    expect(k.visit_id).toMatch(/^vis/);
    expect(await confirmedRow.getByRole('link', { name: 'Its visit' }).getAttribute('href')).toBe(
      `/console/visits/${k.visit_id}?mode=test`,
    );

    // The stale tab's confirm of the declined booking is refused, with the request id, and changes nothing.
    await stale.getByRole('button', { name: 'Confirm the booking of Abena Declined' }).click();
    await stale.locator('.notice[role="alert"]').waitFor();
    await expect(stale.locator('.notice[role="alert"]').textContent()).resolves.toContain(
      'no longer pending',
    );
    await expect(stale.locator('.notice[role="alert"] code').textContent()).resolves.toMatch(/^req_/);
    expect(new URL(stale.url()).searchParams.get('status')).toBe('pending');
    expect(await stale.locator(`tr[data-booking="${declined.id}"]`).count()).toBe(0);
    await judgePage(stale, 'bookings-refused');
    expect((await v1<Booking>(`/bookings/${declined.id}`)).body.status).toBe('declined');

    const audit = await c.t.app.get(DataSource).query(
      `SELECT target_id, action, data, request_id FROM visitor.audit_event
          WHERE target_type = 'booking' ORDER BY created_at`,
    );
    expect(audit).toEqual([
      {
        target_id: declined.id,
        action: 'booking.declined',
        data: { reason: 'The site is closed for an audit that day', share_reason_with_attendee: true },
        request_id: expect.stringMatching(/^req_/),
      },
      {
        target_id: confirmed.id,
        action: 'booking.confirmed',
        data: { visit_id: k.visit_id },
        request_id: expect.stringMatching(/^req_/),
      },
    ]);

    // The attendee's message (test mode: the outbox) carries the shared reason.
    await until(async () => {
      await page.goto(`${c.t.baseUrl}/console/outbox`);
      const bodies = await page.locator('.message-body').allTextContents();
      return bodies.some((x) => x.includes('Reason: The site is closed for an audit that day'));
    }, 15_000);

    // Live mode has none of the test mode's bookings or types.
    await page.goto(`${c.t.baseUrl}/console/bookings?mode=live`);
    await page.locator('#bookings-none').waitFor();
    expect(await page.locator('.test-banner').count()).toBe(0);
    await page.goto(`${c.t.baseUrl}/console/bookings/types?mode=live`);
    await page.locator('#types-none').waitFor();
    expect(problems.filter((p) => !/Content Security Policy/.test(p))).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('lets a member decide bookings but not change booking types, and refuses support staff', async () => {
    const pending = await v1<{ data: { start: string }[] }>(`/booking-types/${typeId}/availability`);
    const third = await book('Esi Member', '+233244555303', pending.body.data[0].start);
    const another = await book('Yaw Support', '+233244555304', pending.body.data[1].start);

    const member = await signIn(c, 'member@demo.gatehouse.test', PASSWORD, '/console/bookings?mode=test');
    expect(await member.page.locator('nav.console-nav a').allTextContents()).toContain('Bookings');
    await member.page.getByRole('button', { name: 'Confirm the booking of Esi Member' }).waitFor();
    await judgePage(member.page, 'bookings-member');
    await member.page.goto(`${c.t.baseUrl}/console/bookings/types?mode=test`);
    await member.page.locator(`tr[data-type="${typeId}"]`).waitFor();
    expect(await member.page.getByRole('button', { name: /Publish|Unpublish/ }).count()).toBe(0);
    expect(await member.page.locator('#add-h').count()).toBe(0);
    await judgePage(member.page, 'booking-types-member');
    const edit = await member.page.goto(`${c.t.baseUrl}/console/bookings/types/${typeId}?mode=test`);
    expect(edit!.status()).toBe(403);

    // Direct POSTs with a valid CSRF token: the role is refused and nothing changes.
    await member.page.goto(`${c.t.baseUrl}/console/bookings/types?mode=test`);
    const s = await session(member.page);
    const publish = await post(`/console/bookings/types/${typeId}/publish?mode=test`, s, {
      _csrf: s.csrf,
      public: 'false',
    });
    expect(publish.status).toBe(403);
    const create = await post('/console/bookings/types?mode=test', s, {
      _csrf: s.csrf,
      name: 'Member type',
      site_id: c.demo.site_id!,
      visit_type: 'meeting',
      [`host.${c.demo.host_id}`]: 'on',
      duration_minutes: '30',
      'hours.mon': '09:00-10:00',
    });
    expect(create.status).toBe(403);
    // A role that may confirm is still refused without the form's CSRF token.
    const noToken = await post(`/console/bookings/${another.id}/confirm?mode=test`, s, {});
    expect(noToken.status).toBe(403);
    expect((await v1<Booking>(`/bookings/${another.id}`)).body.status).toBe('pending');
    const types = await v1<{ data: { name: string; public: boolean }[] }>('/booking-types');
    expect(types.body.data.map((x) => [x.name, x.public])).toEqual([
      ['Site tour with safety briefing', true],
    ]);

    // The member's role may confirm (bookings:write), as /v1 allows it.
    await member.page.goto(`${c.t.baseUrl}/console/bookings?mode=test&status=pending`);
    await member.page.getByRole('button', { name: 'Confirm the booking of Esi Member' }).click();
    await member.page.getByText('Booking confirmed: its visit is created.').waitFor();
    expect((await v1<Booking>(`/bookings/${third.id}`)).body.status).toBe('confirmed');
    await member.page.context().close();

    // Support staff may not open the page, nor act on a booking.
    const support = await signIn(c, 'support@demo.gatehouse.test', PASSWORD);
    expect(await support.page.locator('nav.console-nav a').allTextContents()).not.toContain('Bookings');
    const res = await support.page.goto(`${c.t.baseUrl}/console/bookings?mode=test`);
    expect(res!.status()).toBe(403);
    await support.page.goto(`${c.t.baseUrl}/console`);
    const ss = await session(support.page);
    for (const action of ['confirm', 'decline']) {
      const r = await post(`/console/bookings/${another.id}/${action}?mode=test`, ss, {
        _csrf: ss.csrf,
      });
      expect(r.status).toBe(403);
    }
    expect((await v1<Booking>(`/bookings/${another.id}`)).body.status).toBe('pending');
    await support.page.context().close();
  }, 120_000);
});
