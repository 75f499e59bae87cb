import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../../config/config';
import { InjectConfig } from '../../../config/config.module';
import { Clock } from '../../../common/clock';
import { SecretBox } from '../../../common/crypto/secret-box';
import { ClaimedDelivery, ClaimOf, WebhooksRepository } from '../webhooks.repository';
import { DISABLE_AFTER_MS, nextAttemptAt } from './retry-schedule';
import type { KeyObject } from 'node:crypto';
import { signatureHeader, signingKey } from './signature';
import { checkedDestination, DestinationCheck, DestinationPolicy, Resolver } from './destination';
import { sendWebhook, SendResult } from './webhook-sender';
import { JobQueue } from '../../../common/queue/job-queue';
import { OutcomeRecorder } from './outcome-recorder';

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

/**
 * A claimed delivery ready to send: what the claim returned, the keys that sign it, its endpoint's destination as
 * checked for this batch, and when it was claimed.
 */
export type ReadyDelivery = ClaimedDelivery & {
  keys: KeyObject[];
  destination: DestinationCheck;
  claimedAt: Date;
};

/** What one claim statement took: how many rows, those to send, and the results of the others (ended, held). */
export interface ClaimedBatch {
  claimed: number;
  ready: ReadyDelivery[];
  results: Map<string, AttemptResult>;
}

/**
 * Delivery attempts: claimed in batches, signed, sent, recorded in batches, the next attempt scheduled. The worker's
 * loop (DeliveryPump) drives it; `attempt` runs one delivery now.
 */
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

  private policy(): DestinationPolicy {
    return { allowLocalTargets: this.config.webhooks.allowLocalTargets, resolver: this.resolver };
  }

  /** Checks `url` (shape, then its resolved address), then signs and POSTs `body` to it (test sends). */
  post(
    url: string,
    eventId: string,
    body: string,
    secrets: (string | KeyObject)[],
    now: Date,
  ): Promise<SendResult> {
    return this.postTo(this.checked(url), eventId, body, secrets, now);
  }

  private checked(url: string): DestinationCheck {
    return checkedDestination(url, this.policy());
  }

  /** Signs and POSTs `body` to a checked destination (the check's refusal or failure is the result's error). */
  private postTo(
    to: DestinationCheck,
    eventId: string,
    body: string,
    secrets: (string | KeyObject)[],
    now: Date,
  ): Promise<SendResult> {
    const ts = Math.floor(now.getTime() / 1000);
    return sendWebhook(
      to,
      body,
      {
        'webhook-id': eventId,
        'webhook-timestamp': String(ts),
        'webhook-signature': signatureHeader(secrets, eventId, ts, body),
      },
      this.config.webhooks.timeoutMs,
    );
  }

  /**
   * Claims deliveries (`of`: named ones, or up to a number of the due ones) for one attempt each, in one statement;
   * ends those whose endpoint was deleted or disabled (one statement) and leaves the held ones. The rest are ready
   * to send, each with the keys that sign for it and its destination, checked (URL shape, then the host's resolved
   * addresses) once per endpoint of the batch: its new connections go to the address checked, and the next batch
   * checks again. A batch is sent within seconds of its claim (`sendable`), so no answer is older than that.
   */
  async claim(of: ClaimOf): Promise<ClaimedBatch> {
    const now = this.clock.now();
    // The claim outlives the longest attempt; if this worker dies mid-attempt, the claim expires and another
    // worker takes the delivery again (at-least-once).
    const claimed = await this.repo.claim(of, now, claimMs(this.config));
    const results = new Map<string, AttemptResult>();
    const gone: { id: string; reason: string }[] = [];
    const ready: ReadyDelivery[] = [];
    const keys = new Map<string, KeyObject[]>();
    const destinations = new Map<string, DestinationCheck>();
    for (const c of claimed) {
      const { delivery, endpoint } = c;
      if (endpoint.deletedAt || endpoint.status !== 'enabled') {
        gone.push({
          id: delivery.id,
          reason: endpoint.deletedAt
            ? 'endpoint deleted'
            : `endpoint disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`,
        });
        results.set(delivery.id, 'abandoned');
      } else if (c.held) {
        results.set(delivery.id, 'held');
      } else {
        let signing = keys.get(endpoint.id);
        if (!signing) keys.set(endpoint.id, (signing = this.signingSecrets(endpoint, now).map(signingKey)));
        let destination = destinations.get(endpoint.url);
        if (!destination) destinations.set(endpoint.url, (destination = this.checked(endpoint.url)));
        ready.push({ ...c, keys: signing, destination, claimedAt: now });
      }
    }
    await this.repo.abandon(gone, now);
    return { claimed: claimed.length, ready, results };
  }

  /**
   * Whether a claimed delivery may still be sent: its claim must outlast the POST (WEBHOOK_TIMEOUT_MS), so that no
   * other worker takes it while this attempt is open.
   */
  sendable(d: ReadyDelivery): boolean {
    return (
      this.clock.now().getTime() - d.claimedAt.getTime() <=
      claimMs(this.config) - this.config.webhooks.timeoutMs - 1_000
    );
  }

  /**
   * Sends a claimed delivery to its batch's checked destination, records the attempt (in one statement with the others
   * that end meanwhile) and schedules the next one; `posted` is called when the POST has ended.
   */
  async send(d: ReadyDelivery, posted?: () => void): Promise<AttemptResult> {
    const { delivery, endpoint } = d;
    const now = this.clock.now();
    let result: SendResult;
    try {
      result = await this.postTo(d.destination, delivery.eventId, d.body, d.keys, now);
    } finally {
      posted?.();
    }
    const attemptNumber = delivery.attemptCount + 1;
    const after = new Date(now.getTime() + result.durationMs);
    const next = result.ok ? null : nextAttemptAt(attemptNumber, after, this.random);
    await this.recorder.record(
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
      endpoint,
    );
    return result.ok ? 'succeeded' : next ? 'retrying' : 'failed';
  }

  /** Removes the `webhooks.deliver` wake-ups waiting in Redis (the worker's loop is about to claim what is due). */
  dropWaitingWakeUps(): Promise<void> {
    return this.jobs.dropWaiting('webhooks.deliver');
  }

  /** One attempt of one delivery, now: claim, sign, send, record, schedule the next attempt. */
  async attempt(deliveryId: string): Promise<AttemptResult> {
    const { ready, results } = await this.claim({ ids: [deliveryId] });
    return ready.length ? this.send(ready[0]) : (results.get(deliveryId) ?? 'skipped');
  }

  /**
   * Records outcomes group-commit style (OutcomeRecorder): the first waits for nothing, and the ones that end while
   * its statement runs go together in the next (WebhooksRepository.recordOutcome). An outcome's promise settles once
   * it is stored, its retry's job added and, if it disabled the endpoint, the notification made.
   */
  private readonly recorder = new OutcomeRecorder<ClaimedDelivery['endpoint']>(async (batch) => {
    const disabled = new Set(
      await this.repo.recordOutcome(
        batch.map((b) => b.outcome),
        DISABLE_AFTER_MS,
      ),
    );
    const retries = batch.map((b) => b.outcome).filter((o) => o.nextAttemptAt);
    const added = this.jobs
      .add(
        'webhooks.deliver',
        retries.map((o) => ({
          data: { deliveryId: o.deliveryId, attempt: o.attemptNumber + 1 },
          delayMs: o.nextAttemptAt!.getTime() - this.clock.now().getTime(),
        })),
      )
      .catch(() => undefined);
    const notified = [...disabled].map((id) => {
      const endpoint = batch.find((b) => b.endpoint.id === id)!.endpoint;
      this.logger.warn(`endpoint ${id} disabled: every attempt failed for 5 days`);
      return this.onDisabled
        ?.endpointDisabled(endpoint)
        .catch((e: Error) => this.logger.warn(`disable notification failed: ${e.message}`));
    });
    return { settled: Promise.all([added, ...notified]).then(() => undefined) };
  });

  onDisabled: EndpointDisabledListener | null = null;
}
