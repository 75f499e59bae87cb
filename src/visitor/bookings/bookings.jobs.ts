import { Injectable } from '@nestjs/common';
import { Periodic } from '../../common/periodic';
import { BookingsService } from './bookings.service';

/** Bookings' periodic work. */
@Injectable()
export class BookingsJobs {
  constructor(private readonly bookings: BookingsService) {}

  /**
   * Every minute: pending bookings past confirm_by become `expired` (slot freed, booking.expired). One worker of
   * the fleet runs each period (PeriodClaim); should two overlap anyway, SKIP LOCKED gives each its own rows and
   * the status check in the transition table refuses a second expiry.
   */
  @Periodic({
    name: 'bookings.expire',
    every: 'minute',
    what: 'pending bookings expired',
    formerly: 'BookingExpiryJob',
  })
  expire(): Promise<number> {
    return this.bookings.expireDue();
  }
}
