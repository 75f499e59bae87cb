import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { Clock } from '../../common/clock';
import { PeriodicTask } from '../../common/periodic-task';
import { EventsRepository } from './events.repository';

export const EVENT_RETENTION_DAYS = 30;

/** Deletes events (with their deliveries and attempts) older than 30 days, hourly. */
@Injectable()
export class EventsRetention extends PeriodicTask {
  protected readonly logger = new Logger('EventsRetention');
  protected readonly what = `events older than ${EVENT_RETENTION_DAYS} days purged`;

  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected work(): Promise<number> {
    return this.repo.purgeBefore(new Date(this.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000));
  }
}
