import { Client } from 'pg';
import { bootTestApp, TestApp } from '../harness';
import { WebhookReceiver } from './webhook-receiver';

/** Delivery to the local receiver (loopback, http), a short timeout and a fast sweeper. */
export const LOCAL_DELIVERY_ENV = {
  WEBHOOK_ALLOW_LOCAL_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '500',
  WEBHOOK_SWEEP_MS: '200',
};

export interface WebhookApp {
  t: TestApp;
  receiver: WebhookReceiver;
  /** A direct connection to the app's database, to assert rows. */
  pg: Client;
  close(): Promise<void>;
}

/** A real receiver on 127.0.0.1 and an app (with its worker) delivering to it, on a database of its own. */
export async function startWebhookApp(env: Record<string, string> = {}): Promise<WebhookApp> {
  const receiver = await new WebhookReceiver().start();
  const t = await bootTestApp({ env: { ...LOCAL_DELIVERY_ENV, ...env } });
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  return {
    t,
    receiver,
    pg,
    close: async () => {
      await pg.end();
      await t.close();
      await receiver.stop();
    },
  };
}
