import type { Logger } from '@nestjs/common';
import type { DeliveryService, ReadyDelivery } from './delivery.service';
import { claimSize } from '../webhooks.repository';

/**
 * A worker's delivery loop (one per worker process). It claims due deliveries in batches — one statement takes as
 * many as there is room for — and sends them with at most `concurrency` POSTs in flight; each outcome is recorded
 * with the others that end meanwhile (DeliveryService). Up to four times `concurrency` more are claimed ahead
 * (by up to two claims at once), so a POST that ends is followed by the next at once instead of after a claim's
 * round trip; one that waited too long for a slot is not sent (its claim might lapse mid-POST) and is taken again
 * when its claim expires.
 *
 * It is woken by a job (deliveries fell due: `webhooks.deliver`), by a timer every WEBHOOK_SWEEP_MS (retries,
 * expired claims of dead workers, jobs Redis lost), and keeps claiming while claims come back full. A wake-up
 * during a claim is not lost: the loop stops only after a claim that came back short began after the last one.
 */
export class DeliveryPump {
  private readonly ready: ReadyDelivery[] = [];
  private sending = 0;
  /** Claimed and not yet recorded (ready, sending or being recorded). */
  private open = 0;
  /** Claim statements under way, and how many deliveries they may bring. */
  private claims = 0;
  private claimingRows = 0;
  /** Wake-ups since the last claim began. */
  private woken = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly idle: (() => void)[] = [];
  private warned = false;

  constructor(
    private readonly delivery: DeliveryService,
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {}

  start(pollMs: number): void {
    this.timer = setInterval(() => this.wake(), pollMs);
    this.wake();
  }

  wake(): void {
    this.woken++;
    this.claim();
  }

  /** Stops claiming; resolves when every claimed delivery was sent and recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    if (this.open > 0 || this.claims > 0) await new Promise<void>((r) => this.idle.push(r));
  }

  /**
   * Starts claims while there is room: ready ones (with what the claims under way may bring) fewer than two
   * batches, and unrecorded ones under eight batches (bounding memory while PostgreSQL is slow; it gates the start
   * of a claim, so one claim may take them to about twelve) — outcomes wait for one recording statement at a time,
   * and a lower bound (three) held the sending back while they waited (the bench: 4,900 deliveries/s against
   * 5,700). A claim tops the ready ones (with what claims under way bring) up to four batches, rounded down to a
   * claim size (`claimSize`), so it takes well over a batch: each claim is a statement and a commit, and when a
   * claim also left room for the ones sending, claims averaged 55 rows and cost the worker and PostgreSQL more CPU
   * per delivery (see docs/decisions.md). A second claim starts when the first is slow to come back: with one batch
   * ahead and one claim at a time, the slots ran dry during a third of a drain while the next claim ran. Two claims
   * never take the same delivery (SKIP LOCKED).
   */
  private claim(): void {
    const c = this.concurrency;
    while (
      !this.stopped &&
      this.woken > 0 &&
      this.claims < MAX_CLAIMS &&
      this.ready.length + this.claimingRows < 2 * c &&
      this.open + this.claimingRows < 8 * c
    ) {
      void this.claimBatch(claimSize(4 * c - this.ready.length - this.claimingRows));
    }
    this.settle();
  }

  private async claimBatch(limit: number): Promise<void> {
    const seen = this.woken;
    this.claims++;
    this.claimingRows += limit;
    try {
      const batch = await this.delivery.claim({ limit });
      this.warned = false;
      // A short batch that began after the last wake-up took everything due; a full one may have left some.
      if (batch.claimed >= limit) this.woken++;
      else if (this.woken === seen) this.woken = 0;
      this.open += batch.ready.length;
      this.ready.push(...batch.ready);
    } catch (e) {
      // PostgreSQL unreachable: the timer wakes the loop again.
      if (!this.warned) this.logger.warn(`cannot claim deliveries: ${(e as Error).message}`);
      this.warned = true;
      this.woken = 0;
    } finally {
      this.claims--;
      this.claimingRows -= limit;
    }
    this.send();
  }

  private send(): void {
    while (this.sending < this.concurrency && this.ready.length) {
      const d = this.ready.shift()!;
      if (!this.delivery.sendable(d)) {
        this.open--;
        continue;
      }
      this.sending++;
      this.delivery
        .send(d, () => {
          this.sending--;
          this.send();
        })
        .catch((e: Error) => this.logger.warn(`delivery ${d.delivery.id} not recorded: ${e.message}`))
        .finally(() => {
          this.open--;
          this.claim();
        });
    }
    this.claim();
  }

  private settle(): void {
    if (this.stopped && this.open === 0 && this.claims === 0) this.idle.splice(0).forEach((r) => r());
  }
}

/** Claim statements one worker has under way at most. */
const MAX_CLAIMS = 2;
