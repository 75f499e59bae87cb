import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { IDEMPOTENCY_TTL_MS } from './idempotency';
import { IdempotencyRepository } from './idempotency.repository';

/** Idempotency keys' periodic work. */
@Injectable()
export class IdempotencyJobs {
  constructor(
    private readonly repo: IdempotencyRepository,
    private readonly clock: Clock,
  ) {}

  /** Deletes idempotency keys older than 24 hours, hourly. */
  @Periodic({
    name: 'idempotency.purge',
    every: 'hour',
    what: 'idempotency keys older than 24 hours purged',
    formerly: 'IdempotencyPurge',
  })
  purge(): Promise<number> {
    return this.repo.purge(new Date(this.clock.now().getTime() - IDEMPOTENCY_TTL_MS));
  }
}
