import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { WebhooksRepository } from '../webhooks/webhooks.repository';

export const EVENT_RETENTION_DAYS = 30;

/** Deletes events (with their deliveries and attempts) older than 30 days, hourly, in worker processes. */
@Injectable()
export class EventsRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EventsRetention');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.nodeEnv === 'test') return;
    this.timer = setInterval(() => void this.purge(), 3_600_000);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      const n = await this.repo.purgeEventsBefore(
        new Date(this.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000),
      );
      if (n > 0) this.logger.log(`purged ${n} events older than ${EVENT_RETENTION_DAYS} days`);
      return n;
    } catch (e) {
      this.logger.warn(`event purge failed: ${(e as Error).message}`);
      return 0;
    }
  }
}
