import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../../config/config';
import { InjectConfig } from '../../../config/config.module';
import { Clock } from '../../../common/clock';
import { SecretBox } from '../../../common/crypto/secret-box';
import { WebhooksRepository } from '../webhooks.repository';
import { DISABLE_AFTER_MS, nextAttemptAt } from './retry-schedule';
import { signatureHeader } from './signature';
import { Resolver } from './destination';
import { sendWebhook, SendResult } from './webhook-sender';
import { JobQueue } from '../../../common/queue/job-queue';

export const claimMs = (config: Config): number => config.webhooks.timeoutMs + 5_000;

/** `held`: the organisation's plan lacks live webhooks; nothing was sent, the sweeper resumes it later. */
export type AttemptResult = 'skipped' | 'held' | 'abandoned' | 'succeeded' | 'retrying' | 'failed';

/** Listener for endpoints disabled by repeated failure (the notification of Owners and Admins plugs in here). */
export abstract class EndpointDisabledListener {
  abstract endpointDisabled(endpoint: {
    id: string;
    organisationId: string;
    livemode: boolean;
    url: string;
  }): Promise<void>;
}

/** One attempt of one delivery: claim, sign, send, record, schedule the next attempt. */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly box: SecretBox;
  /** Tests may swap the resolver to play DNS answers. */
  resolver: Resolver | undefined;
  random: () => number = Math.random;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {
    this.box = new SecretBox(config.secrets.encryptionKey);
  }

  /** Secrets that sign right now: the current one, and the previous one during a rotation overlap. */
  signingSecrets(
    endpoint: {
      secretSealed: string;
      previousSecretSealed: string | null;
      previousSecretExpiresAt: Date | null;
    },
    now: Date,
  ): string[] {
    const secrets = [this.box.open(endpoint.secretSealed)];
    if (
      endpoint.previousSecretSealed &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > now
    ) {
      secrets.push(this.box.open(endpoint.previousSecretSealed));
    }
    return secrets;
  }

  /** Signs and POSTs `body` to `url` (also used for synchronous test sends). */
  async post(url: string, eventId: string, body: string, secrets: string[], now: Date): Promise<SendResult> {
    const ts = Math.floor(now.getTime() / 1000);
    return sendWebhook(
      url,
      body,
      {
        'webhook-id': eventId,
        'webhook-timestamp': String(ts),
        'webhook-signature': signatureHeader(secrets, eventId, ts, body),
      },
      {
        allowLocalTargets: this.config.webhooks.allowLocalTargets,
        resolver: this.resolver,
        timeoutMs: this.config.webhooks.timeoutMs,
      },
    );
  }

  async attempt(deliveryId: string): Promise<AttemptResult> {
    const now = this.clock.now();
    // The claim outlives the longest attempt; if this worker dies mid-attempt, the claim expires and the
    // sweeper hands the delivery to another worker (at-least-once).
    const claimed = await this.repo.claim(deliveryId, now, claimMs(this.config));
    if (!claimed) return 'skipped';
    const { delivery, body, endpoint } = claimed;
    if (endpoint.deletedAt || endpoint.status !== 'enabled') {
      await this.repo.abandon(
        delivery.id,
        now,
        endpoint.deletedAt
          ? 'endpoint deleted'
          : `endpoint disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`,
      );
      return 'abandoned';
    }
    if (claimed.held) return 'held';
    const result = await this.post(
      endpoint.url,
      delivery.eventId,
      body,
      this.signingSecrets(endpoint, now),
      now,
    );
    const attemptNumber = delivery.attemptCount + 1;
    const after = new Date(now.getTime() + result.durationMs);
    const next = result.ok ? null : nextAttemptAt(attemptNumber, after, this.random);
    const { disabledEndpoint } = await this.repo.recordOutcome(
      {
        deliveryId: delivery.id,
        endpointId: endpoint.id,
        attemptNumber,
        attemptedAt: now,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error,
        excerpt: result.excerpt,
        succeeded: result.ok,
        nextAttemptAt: next,
      },
      DISABLE_AFTER_MS,
    );
    if (disabledEndpoint) {
      this.logger.warn(`endpoint ${endpoint.id} disabled: every attempt failed for 5 days`);
      await this.onDisabled
        ?.endpointDisabled(endpoint)
        .catch((e: Error) => this.logger.warn(`disable notification failed: ${e.message}`));
    }
    if (result.ok) return 'succeeded';
    if (!next) return 'failed';
    await this.jobs
      .add('webhooks.deliver', [
        {
          data: { deliveryId: delivery.id, attempt: attemptNumber + 1 },
          delayMs: next.getTime() - this.clock.now().getTime(),
        },
      ])
      .catch(() => undefined);
    return 'retrying';
  }

  onDisabled: EndpointDisabledListener | null = null;
}
