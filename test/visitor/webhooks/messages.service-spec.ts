import { Client } from 'pg';
import { bootServiceContext, ServiceContext } from '../../harness';
import { MessagesService, MessageProvider } from '../../../src/visitor/messages/messages.service';

describe('messages: channel fallback and the test outbox', () => {
  let t: ServiceContext;
  let pg: Client;
  beforeAll(async () => {
    t = await bootServiceContext();
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await t.close();
  });

  it('test mode never calls a provider; the message lands in the test outbox', async () => {
    const svc = t.app.get(MessagesService);
    const calls: string[] = [];
    svc.useProvider({ name: 'spy', channel: 'whatsapp', send: async (r) => (calls.push(r), { ok: true }) });
    const out = await svc.send({ organisationId: 'org_m', livemode: false }, ['whatsapp', 'sms'], {
      to: { phone: '+233244123456' },
      body: 'Your pass',
    });
    expect(out.channel).toBe('whatsapp');
    expect(calls).toEqual([]);
    const { rows } = await pg.query(
      `SELECT channel, recipient, provider, status FROM visitor.message WHERE id = $1`,
      [out.messageId],
    );
    expect(rows).toEqual([
      { channel: 'whatsapp', recipient: '+233244123456', provider: 'test_outbox', status: 'outbox' },
    ]);
  });

  it('live mode falls back in order to the first channel that works', async () => {
    const svc = t.app.get(MessagesService);
    const failing: MessageProvider = {
      name: 'wa',
      channel: 'whatsapp',
      send: async () => ({ ok: false, error: 'not on WhatsApp' }),
    };
    const sms: MessageProvider = { name: 'smsco', channel: 'sms', send: async () => ({ ok: true }) };
    svc.useProvider(failing);
    svc.useProvider(sms);
    const out = await svc.send({ organisationId: 'org_m', livemode: true }, ['email', 'whatsapp', 'sms'], {
      to: { phone: '+233244123456' },
      body: 'Your pass',
    });
    expect(out).toMatchObject({
      channel: 'sms',
      tried: [
        { channel: 'email', error: 'no recipient for this channel' },
        { channel: 'whatsapp', error: 'not on WhatsApp' },
      ],
    });
    const { rows } = await pg.query(
      `SELECT channel, status FROM visitor.message WHERE organisation_id = 'org_m' AND livemode ORDER BY created_at, channel`,
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { channel: 'whatsapp', status: 'failed' },
        { channel: 'sms', status: 'sent' },
      ]),
    );
  });
});
