import { Client } from 'pg';
import { toString as qrSvg } from 'qrcode';
import { bootTestApp, TestApp } from '../harness';
import { until } from '../support/until';
import { call, createOrg } from '../support/platform-fixtures';
import { forgedSignature } from '../support/forged';

/** The page a visitor's pass link opens: when, where, the host's first name and a QR code; nothing private. */
describe('pass page (/passes/<token>)', () => {
  let t: TestApp;
  let pg: Client;
  let key: string;
  let site: string;
  let host: string;
  let phoneSeq = 5000;

  beforeAll(async () => {
    t = await bootTestApp();
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    const org = await createOrg(t.app);
    key = await org.key();
    site = org.sites.find((s) => !s.livemode)!.id;
    host = (
      await call(t.app, 'POST', '/v1/people', {
        key,
        body: { name: 'Ama Serwaa Mensah', email: 'ama.private@host.test', phone: '+233244000111' },
      })
    ).json().id;
  });
  afterAll(async () => {
    await pg?.end();
    await t?.close();
  });

  /** A visit, and the pass link the visitor received (read from the test outbox, as they would read it). */
  async function visitWithPass(body: Record<string, unknown> = {}) {
    const phone = `+23324${String(4100000 + phoneSeq++).padStart(7, '0')}`;
    const res = await call(t.app, 'POST', '/v1/visits', {
      key,
      body: {
        site_id: site,
        host_id: host,
        type: 'meeting',
        purpose: 'Confidential contract review',
        visitor: { name: 'Kofi Boateng', phone, email: 'kofi.private@example.com', company: 'Secret Co' },
        ...body,
      },
    });
    expect(res.statusCode).toBe(201);
    const id = res.json().id as string;
    const links = async () =>
      (
        await pg.query(`SELECT body FROM visitor.message WHERE related_id = $1 ORDER BY created_at`, [id])
      ).rows.map((r) => /\/passes\/(\S+)/.exec(r.body as string)![1]);
    await until(async () => (await links()).length > 0);
    return { id, phone, token: (await links())[0], links };
  }

  const open = (token: string) => t.app.inject({ method: 'GET', url: `/passes/${token}` });

  it('shows the visit time in the site time zone, the site, the host first name and a QR code of the token', async () => {
    const v = await visitWithPass({
      expected_at: '2030-03-14T09:30:00Z',
      expected_until: '2030-03-14T11:00:00Z',
    });
    const res = await open(v.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Thursday, 14 March 2030, 09:30 – 11:00');
    expect(res.body).toContain('Africa/Accra');
    expect(res.body).toContain('Site 1');
    expect(res.body).toContain('<dd>Ama</dd>');
    expect(res.body).toContain('Test mode');
    // The QR code is the one qrcode draws for exactly this token.
    expect(res.body).toContain(await qrSvg(v.token, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
  });

  it('shows nothing private: no visitor details, no host surname or contact, no purpose, no ids', async () => {
    const v = await visitWithPass();
    const res = await open(v.token);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No time set');
    for (const secret of [
      'Kofi',
      'Boateng',
      v.phone,
      'kofi.private@example.com',
      'Secret Co',
      'Serwaa',
      'Mensah',
      'ama.private@host.test',
      '+233244000111',
      'Confidential',
      v.id,
      host,
      site,
    ])
      expect({ secret, shown: res.body.includes(secret) }).toEqual({ secret, shown: false });
  });

  it('an unknown, forged, replaced or finished pass is the plain 404 page', async () => {
    const replaced = await visitWithPass();
    expect(
      (await call(t.app, 'POST', `/v1/visits/${replaced.id}/resend-pass`, { key, body: {} })).statusCode,
    ).toBe(202);
    await until(async () => (await replaced.links()).length === 2);
    expect((await open((await replaced.links())[1])).statusCode).toBe(200);

    const cancelled = await visitWithPass();
    expect((await open(cancelled.token)).statusCode).toBe(200);
    await call(t.app, 'POST', `/v1/visits/${cancelled.id}/cancel`, { key, body: {} });

    const good = (await visitWithPass()).token;
    for (const token of [
      'nothing-here',
      `pass_00000000000000000000000000.${good.split('.')[1]}`,
      forgedSignature(good),
      replaced.token,
      cancelled.token,
    ]) {
      const res = await open(token);
      expect({ token, status: res.statusCode }).toEqual({ token, status: 404 });
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<h1>Page not found</h1>');
      expect(res.body).not.toMatch(/Site 1|Ama|pass_/);
    }
  });
});
