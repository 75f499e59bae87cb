import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { Channel, MessageRow, MessagesRepository } from './messages.repository';

export type { Channel, MessageRow };

export interface OutgoingMessage {
  to: { email?: string | null; phone?: string | null };
  subject?: string;
  body: string;
  relatedId?: string;
}

/** A way to deliver a message on one channel. Live mode uses the provider configured for each channel. */
export interface MessageProvider {
  readonly name: string;
  readonly channel: Channel;
  /** The message stays in the outbox (status `outbox`, not `sent`): nothing left the machine. */
  readonly outboxOnly?: boolean;
  send(
    recipient: string,
    message: OutgoingMessage,
    meta: { messageId: string },
  ): Promise<{ ok: true } | { ok: false; error: string }>;
}

/**
 * Development provider: the message is kept in the outbox table (readable in the console) and a line naming its
 * id goes to the log — never the recipient or the text, which erasure could not reach in a log file.
 */
export class LogProvider implements MessageProvider {
  private readonly logger = new Logger('Messages');
  readonly name = 'log';
  readonly outboxOnly = true;
  constructor(readonly channel: Channel) {}
  async send(
    _recipient: string,
    message: OutgoingMessage,
    meta: { messageId: string },
  ): Promise<{ ok: true }> {
    this.logger.log(
      `[${this.channel}] message ${meta.messageId}${message.relatedId ? ` about ${message.relatedId}` : ''} kept in the outbox (log provider)`,
    );
    return { ok: true };
  }
}

/** Makes the provider of one channel. */
export type ProviderFactory = (channel: Channel) => MessageProvider;

/** Providers by the name configuration uses. A module bringing a real provider registers its factory here. */
export const MESSAGE_PROVIDERS = new Map<string, ProviderFactory>([['log', (c) => new LogProvider(c)]]);

export const CHANNELS: readonly Channel[] = ['email', 'sms', 'whatsapp'];

/**
 * What configuration may say about messages: the provider name per channel (`messages.providers`, from
 * MESSAGE_PROVIDER_EMAIL / _SMS / _WHATSAPP once the config schema has them). Every channel defaults to `log`.
 */
export interface MessagesSettings {
  messages?: { providers?: Partial<Record<Channel, string>> };
}

/** The provider of each channel as configured; an unknown provider name stops start-up with a clear error. */
export function configuredProviders(settings: MessagesSettings): Map<Channel, MessageProvider> {
  const chosen = settings.messages?.providers ?? {};
  return new Map(
    CHANNELS.map((channel) => {
      const name = chosen[channel] ?? 'log';
      const factory = MESSAGE_PROVIDERS.get(name);
      if (!factory)
        throw new Error(
          `MESSAGE_PROVIDER_${channel.toUpperCase()}: unknown message provider "${name}" (known: ${[...MESSAGE_PROVIDERS.keys()].join(', ')})`,
        );
      const provider = factory(channel);
      if (provider.channel !== channel)
        throw new Error(`message provider "${name}" made a ${provider.channel} provider for ${channel}`);
      return [channel, provider];
    }),
  );
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
  private readonly providers: Map<Channel, MessageProvider>;

  constructor(
    private readonly repo: MessagesRepository,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    this.providers = configuredProviders(config as Config & MessagesSettings);
  }

  /** The tenant's messages, newest first, keyset-paged on (created_at, id) (the console's test outbox). */
  list(
    tenant: { organisationId: string; livemode: boolean },
    limit: number,
    before?: { createdAt: Date; id: string },
  ): Promise<MessageRow[]> {
    return this.repo.list(tenant, limit, before);
  }

  /** The provider each channel uses now. */
  providerOf(channel: Channel): MessageProvider {
    return this.providers.get(channel)!;
  }

  /** Replaces the provider of a channel (tests, or a module wiring a provider at start-up). */
  useProvider(provider: MessageProvider): void {
    this.providers.set(provider.channel, provider);
  }

  /**
   * `manager`: the caller's transaction, in which the message's row is written. A pass sent this way commits its
   * message with the pass's `sent` state, so a process killed in between leaves neither and the retry sends once
   * (test mode: the outbox row is the send; a live provider may have sent before the crash: at least once).
   */
  async send(
    tenant: { organisationId: string; livemode: boolean },
    channels: Channel[],
    message: OutgoingMessage,
    manager?: EntityManager,
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
          .send(recipient, message, { messageId: row.id })
          .catch((e: Error) => ({ ok: false as const, error: e.message }));
        row.status = result.ok ? 'sent' : 'failed';
        row.error = result.ok ? null : result.error;
        if (provider.outboxOnly && result.ok) row.status = 'outbox';
      }
      await this.repo.insert(row, manager);
      if (row.status !== 'failed') return { channel, messageId: row.id, tried };
      tried.push({ channel, error: row.error ?? 'failed' });
    }
    return { channel: null, messageId: null, tried };
  }
}
