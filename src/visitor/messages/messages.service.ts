import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { Channel, MessageRow } from './message.entity';
import { MessagesRepository } from './messages.repository';

export interface OutgoingMessage {
  to: { email?: string | null; phone?: string | null };
  subject?: string;
  body: string;
  relatedId?: string;
}

/** A way to deliver a message on one channel. Live mode uses the providers configured per channel. */
export interface MessageProvider {
  readonly name: string;
  readonly channel: Channel;
  send(recipient: string, message: OutgoingMessage): Promise<{ ok: true } | { ok: false; error: string }>;
}

/** Development provider: the message goes to the outbox table and the log, nothing leaves the machine. */
export class LogProvider implements MessageProvider {
  private readonly logger = new Logger('Messages');
  readonly name = 'log';
  constructor(readonly channel: Channel) {}
  async send(recipient: string, message: OutgoingMessage): Promise<{ ok: true }> {
    this.logger.log(
      `[${this.channel}] to ${recipient}: ${message.subject ? `${message.subject} — ` : ''}${message.body.slice(0, 200)}`,
    );
    return { ok: true };
  }
}

export interface SendOutcome {
  channel: Channel | null;
  messageId: string | null;
  tried: { channel: Channel; error: string }[];
}

const RECIPIENT: Record<Channel, (to: OutgoingMessage['to']) => string | null | undefined> = {
  email: (to) => to.email,
  sms: (to) => to.phone,
  whatsapp: (to) => to.phone,
};

/**
 * Sends on the first channel, in the caller's order, that has a recipient and a provider that works. Test mode
 * never sends: every message is written to the test outbox (readable in the console). Every message is a row.
 */
@Injectable()
export class MessagesService {
  private providers = new Map<Channel, MessageProvider>(
    ['email', 'sms', 'whatsapp'].map((c) => [c as Channel, new LogProvider(c as Channel)]),
  );

  constructor(
    private readonly repo: MessagesRepository,
    private readonly clock: Clock,
  ) {}

  /** Replaces the provider of a channel (configuration, tests). */
  useProvider(provider: MessageProvider): void {
    this.providers.set(provider.channel, provider);
  }

  async send(
    tenant: { organisationId: string; livemode: boolean },
    channels: Channel[],
    message: OutgoingMessage,
  ): Promise<SendOutcome> {
    const tried: SendOutcome['tried'] = [];
    for (const channel of channels) {
      const recipient = RECIPIENT[channel](message.to);
      if (!recipient) {
        tried.push({ channel, error: 'no recipient for this channel' });
        continue;
      }
      const provider = this.providers.get(channel)!;
      const row: MessageRow = {
        id: newId('msg'),
        ...tenant,
        channel,
        recipient,
        subject: message.subject ?? null,
        body: message.body,
        provider: tenant.livemode ? provider.name : 'test_outbox',
        status: 'outbox',
        error: null,
        relatedId: message.relatedId ?? null,
        createdAt: this.clock.now(),
      };
      if (tenant.livemode) {
        const result = await provider
          .send(recipient, message)
          .catch((e: Error) => ({ ok: false as const, error: e.message }));
        row.status = result.ok ? 'sent' : 'failed';
        row.error = result.ok ? null : result.error;
        if (provider.name === 'log' && result.ok) row.status = 'outbox';
      }
      await this.repo.insert(row);
      if (row.status !== 'failed') return { channel, messageId: row.id, tried };
      tried.push({ channel, error: row.error ?? 'failed' });
    }
    return { channel: null, messageId: null, tried };
  }
}
