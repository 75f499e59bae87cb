import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { createOrg } from '../support/platform-fixtures';
import { until } from '../support/until';
import { AccountsService } from '../../src/visitor/accounts/accounts.service';

const PASSWORD = 'correct horse battery staple';

/** Someone else's wrong passwords must not lock the owner out; the owner hears about them. */
describe('console sign-in lockout is not a weapon', () => {
  let t: TestApp;
  let pg: Client;

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' } });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    const org = await createOrg(t.app, 'pro');
    for (const email of ['owner@lockout.test', 'admin@lockout.test'])
      await t.app
        .get(AccountsService)
        .create(
          org.id,
          { email, name: 'O', role: 'owner', password: PASSWORD },
          { type: 'operator', id: 't' },
        );
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  const signIn = (email: string, password: string, remoteAddress: string) =>
    t.app.inject({ method: 'POST', url: '/console/session', payload: { email, password }, remoteAddress });
  const mails = async (to: string) =>
    (
      await pg.query(
        `SELECT subject, provider FROM visitor.message WHERE channel = 'email' AND recipient = $1`,
        [to],
      )
    ).rows as { subject: string; provider: string }[];

  it('ten wrong passwords lock the guessers out, not the owner signing in from elsewhere', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await signIn('owner@lockout.test', `guess-${i}`, `203.0.113.${i + 1}`)).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));

    // The guessers are locked out, even with the right password.
    const guesser = await signIn('owner@lockout.test', `guess-10`, '203.0.113.1');
    expect(guesser.statusCode).toBe(429);
    expect(guesser.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(guesser.headers['retry-after'])).toBeGreaterThan(800);
    expect((await signIn('owner@lockout.test', PASSWORD, '203.0.113.2')).statusCode).toBe(429);

    // The owner, from a client that has not been failing, signs in.
    const owner = await signIn('Owner@Lockout.test', PASSWORD, '198.51.100.20');
    expect(owner.statusCode).toBe(200);
    expect(String(owner.headers['set-cookie'])).toMatch(/gh_session=gh_sess_/);

    // A new client guessing while the address is locked gets one wrong try, answered as locked, then no more.
    const newGuesser = await signIn('owner@lockout.test', 'guess-11', '192.0.2.77');
    expect(newGuesser.statusCode).toBe(429);
    expect((await signIn('owner@lockout.test', PASSWORD, '192.0.2.77')).statusCode).toBe(429);

    // Other addresses are not affected.
    expect((await signIn('admin@lockout.test', PASSWORD, '203.0.113.1')).statusCode).toBe(200);
  });

  it('the owner is told by e-mail (test outbox), once per lockout window', async () => {
    const sent = await until(async () => {
      const m = await mails('owner@lockout.test');
      return m.length > 0 && m;
    });
    expect(sent).toEqual([
      {
        subject: 'Someone is trying to sign in to your Gatehouse console account',
        provider: 'test_outbox',
      },
    ]);
    for (let i = 0; i < 3; i++)
      expect((await signIn('owner@lockout.test', `more-${i}`, `192.0.2.${100 + i}`)).statusCode).toBe(429);
    // No second e-mail: read after a sign-in that went through, so a stray send would have been written by now.
    expect((await signIn('admin@lockout.test', PASSWORD, '198.51.100.21')).statusCode).toBe(200);
    expect(await mails('owner@lockout.test')).toHaveLength(1);
    expect(await mails('admin@lockout.test')).toHaveLength(0);
  });

  it('a distributed guesser gets a bounded number of extra tries, then the address is locked for everyone', async () => {
    for (let i = 0; i < 10; i++)
      expect((await signIn('admin@lockout.test', `guess-${i}`, `198.18.0.${i + 1}`)).statusCode).toBe(401);
    const extra: number[] = [];
    for (let i = 0; i < 60; i++)
      extra.push((await signIn('admin@lockout.test', `guess-x${i}`, `198.18.1.${i + 1}`)).statusCode);
    expect(extra.every((s) => s === 429)).toBe(true);
    // Past the extra tries (50 a window), even a fresh client with the correct password waits out the window.
    expect((await signIn('admin@lockout.test', PASSWORD, '198.18.2.1')).statusCode).toBe(429);
    const fresh = await signIn('admin@lockout.test', PASSWORD, '198.18.2.2');
    expect(Number(fresh.headers['retry-after'])).toBeGreaterThan(800);
  }, 120_000);
});
