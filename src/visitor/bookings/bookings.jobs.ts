import { Injectable, Logger } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { PeriodicTask } from '../../common/periodic-task';
import { BookingsService } from './bookings.service';

/**
 * Every minute: pending bookings past confirm_by become `expired` (slot freed, booking.expired). One worker of the
 * fleet runs each period (PeriodicTask); should two overlap anyway, SKIP LOCKED gives each its own rows and the
 * status check in the transition table refuses a second expiry.
 */
@Injectable()
export class BookingExpiryJob extends PeriodicTask {
  protected readonly logger = new Logger('BookingExpiryJob');
  protected readonly what = 'pending bookings expired';
  protected override readonly intervalMs = 60_000;

  constructor(
    private readonly bookings: BookingsService,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected work(): Promise<number> {
    return this.bookings.expireDue();
  }
}
