import { bootConsole, ConsoleUnderTest, createDemoVisit, judgePage, signIn } from './console-browser';

/**
 * The sandbox reset from the console (issue 33): the overview offers it in test mode, a confirmation page says what
 * goes and what stays, and after it the demo's test visits are gone while its key, people and live mode are not.
 */
describe('console sandbox reset in a real browser', () => {
  let c: ConsoleUnderTest;
  const v1 = (path: string) =>
    fetch(`${c.t.baseUrl}${path}`, { headers: { authorization: `Bearer ${c.demo.key}` } }).then(
      async (r) => (await r.json()) as { data: { id: string }[] },
    );

  beforeAll(async () => {
    c = await bootConsole();
  }, 120_000);
  afterAll(() => c?.close(), 120_000); // Chromium and the app stopping: slow on a busy machine (a wait)

  it('deletes the test data after a confirmation; the key and the people stay', async () => {
    expect((await createDemoVisit(c, 'Ama Sandbox', '+233244555301')).status).toBe(201);
    expect((await v1('/v1/visits')).data.length).toBeGreaterThan(0);
    const { page, problems } = await signIn(c, c.demo.email, c.demo.password, '/console?mode=test');
    await page.locator('#sandbox-reset').click();
    await page.waitForURL(/\/console\/sandbox\/reset/);
    await page.getByRole('heading', { name: 'Delete all test data?' }).waitFor();
    await judgePage(page, 'sandbox-reset-confirm');
    await page.getByRole('button', { name: 'Delete test data' }).click();
    await page.waitForURL(/notice=sandbox-reset/);
    await page.getByText('The test data is deleted').waitFor();
    expect(await page.locator('#visits-today').textContent()).toBe('0');
    await judgePage(page, 'sandbox-reset-done');
    expect((await v1('/v1/visits')).data).toEqual([]);
    expect((await v1('/v1/people')).data.length).toBeGreaterThan(0); // the key still works; people stay
    // live mode offers no reset
    await page.goto(`${c.t.baseUrl}/console?mode=live`);
    expect(await page.locator('#sandbox-reset').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
