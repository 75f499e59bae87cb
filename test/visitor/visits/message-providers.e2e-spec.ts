import { Client } from 'pg';
import { bootTestApp, CapturingLogger, TestApp } from '../../harness';
import { Clock } from '../../../src/common/clock';
import { MessagesRepository } from '../../../src/visitor/messages/messages.repository';
import {
  MESSAGE_PROVIDERS,
  MessageProvider,
  MessagesService,
  MessagesSettings,
} from '../../../src/visitor/messages/messages.service';

/** Message providers chosen per channel by configuration; the development provider keeps bodies out of the log. */
describe('message providers', () => {
  let t: TestApp;
  let pg: Client;
  const logger = new CapturingLogger();
  const live = { organisationId: 'org_providers', livemode: true };

  beforeAll(async () => {
    t = await bootTestApp({ env: { RUN_WORKER: 'false' }, logger });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    MESSAGE_PROVIDERS.delete('recording');
    await pg.end();
    await t.close();
  });

  const withSettings = (providers: Record<string, string>) =>
    new MessagesService(t.app.get(MessagesRepository), t.app.get(Clock), {
      ...t.config,
      messages: { providers },
    } as typeof t.config & MessagesSettings);
  const row = async (id: string | null) =>
    (await pg.query(`SELECT channel, recipient, provider, status FROM visitor.message WHERE id = $1`, [id]))
      .rows[0];

  it('by default every channel uses the log provider: the message stays in the outbox, the log names only its id', async () => {
    const svc = t.app.get(MessagesService);
    expect(['email', 'sms', 'whatsapp'].map((c) => svc.providerOf(c as 'sms').name)).toEqual([
      'log',
      'log',
      'log',
    ]);
    const out = await svc.send(live, ['sms'], {
      to: { phone: '+233244987654' },
      body: 'Hello Abena Secret-Surname, your pass: https://x/passes/abc',
      relatedId: 'visit_log1',
    });
    expect(await row(out.messageId)).toEqual({
      channel: 'sms',
      recipient: '+233244987654',
      provider: 'log',
      status: 'outbox',
    });
    const text = logger.text();
    expect(text).toContain(`message ${out.messageId} about visit_log1`);
    expect(text).not.toContain('Secret-Surname');
    expect(text).not.toContain('244987654');
  });

  it('uses the provider configured for each channel, live mode only', async () => {
    const calls: { recipient: string; messageId: string }[] = [];
    MESSAGE_PROVIDERS.set('recording', (channel) => ({
      name: 'recording',
      channel,
      send: async (recipient, _m, meta) => (
        calls.push({ recipient, messageId: meta.messageId }),
        { ok: true }
      ),
    }));
    const svc = withSettings({ sms: 'recording' });
    expect(svc.providerOf('sms').name).toBe('recording');
    expect(svc.providerOf('email').name).toBe('log');
    const sent = await svc.send(live, ['sms'], { to: { phone: '+233244111222' }, body: 'x' });
    expect(calls).toEqual([{ recipient: '+233244111222', messageId: sent.messageId }]);
    expect(await row(sent.messageId)).toMatchObject({ provider: 'recording', status: 'sent' });
    const sandbox = await svc.send({ ...live, livemode: false }, ['sms'], {
      to: { phone: '+233244111222' },
      body: 'x',
    });
    expect(calls).toHaveLength(1);
    expect(await row(sandbox.messageId)).toMatchObject({ provider: 'test_outbox', status: 'outbox' });
  });

  it('refuses an unknown provider name at start-up, naming the setting', () => {
    expect(() => withSettings({ whatsapp: 'twilio' })).toThrow(
      'MESSAGE_PROVIDER_WHATSAPP: unknown message provider "twilio"',
    );
    const wrong: MessageProvider = { name: 'x', channel: 'email', send: async () => ({ ok: true }) };
    MESSAGE_PROVIDERS.set('recording', () => wrong);
    expect(() => withSettings({ sms: 'recording' })).toThrow('made a email provider for sms');
  });
});
