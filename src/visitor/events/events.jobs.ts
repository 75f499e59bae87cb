import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { EventsRepository } from './events.repository';

export const EVENT_RETENTION_DAYS = 30;

/** Events' periodic work. */
@Injectable()
export class EventsJobs {
  constructor(
    private readonly repo: EventsRepository,
    private readonly clock: Clock,
  ) {}

  /** Deletes events (with their deliveries and attempts) older than 30 days, hourly. */
  @Periodic({
    name: 'events.purge',
    every: 'hour',
    what: `events older than ${EVENT_RETENTION_DAYS} days purged`,
    formerly: 'EventsRetention',
  })
  purge(): Promise<number> {
    return this.repo.purgeBefore(new Date(this.clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000));
  }
}
