import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client, Notification } from 'pg';
import { DATABASE_URL } from '../../database/database.module';

type Handler = (payload: string) => void;

/** Channels of PostgreSQL NOTIFY this instance listens on for the streams (docs/architecture.md "Event streams"). */
export type StreamChannel = 'gatehouse_event' | 'gatehouse_request_log';

/**
 * One dedicated PostgreSQL connection per instance, LISTENing on a channel while some open stream needs it: a
 * NOTIFY sent by any instance (in the transaction that recorded an event, so only once it commits) reaches the
 * streams of every instance. The connection is opened on the first listener and reopened after a failure (a
 * notification sent while it is down is missed; a stream resumes with `Last-Event-ID`).
 */
@Injectable()
export class PgNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger('EventStream');
  private readonly handlers = new Map<StreamChannel, Set<Handler>>();
  private client: Promise<Client> | null = null;
  private closed = false;

  constructor(@Inject(DATABASE_URL) private readonly url: string) {}

  /** Calls `handler` with each payload sent on `channel` until the returned function is called. */
  async listen(channel: StreamChannel, handler: Handler): Promise<() => void> {
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    const client = await this.connection();
    if (first) await client.query(`LISTEN ${channel}`);
    return () => void set.delete(handler);
  }

  listening(channel: StreamChannel): boolean {
    return (this.handlers.get(channel)?.size ?? 0) > 0;
  }

  private connection(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('shutting down'));
    this.client ??= (async () => {
      const c = new Client({ connectionString: this.url });
      c.on('notification', (n: Notification) => {
        for (const h of this.handlers.get(n.channel as StreamChannel) ?? []) h(n.payload ?? '');
      });
      c.on('error', (e) => {
        this.logger.warn(`stream notifications connection lost: ${e.message}`);
        this.client = null;
        void c.end().catch(() => undefined);
        if (!this.closed) setTimeout(() => void this.relisten(), 1000).unref();
      });
      await c.connect();
      return c;
    })();
    this.client.catch(() => (this.client = null));
    return this.client;
  }

  private async relisten(): Promise<void> {
    try {
      const c = await this.connection();
      for (const channel of this.handlers.keys()) await c.query(`LISTEN ${channel}`);
    } catch {
      if (!this.closed) setTimeout(() => void this.relisten(), 1000).unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const c = await this.client?.catch(() => null);
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
