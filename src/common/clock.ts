import { Injectable } from '@nestjs/common';

/** Time is injected so retries, expiries, retention and rate windows are testable without sleeping. */
@Injectable()
export class Clock {
  /** The last instant `tick` gave out in this process. */
  private last = 0;

  now(): Date {
    return new Date();
  }

  /**
   * `now()`, but strictly later than every earlier `tick()` of this process: rows written one after the other
   * (sites of one organisation, audit entries of one action) keep their order in `(created_at, id)` keyset lists
   * instead of falling back to the order of their random ids when they share a millisecond. Only for rows
   * written at low rates: above 1,000 calls a second it runs ahead of the wall clock. High-rate writers keep
   * order within their own transaction instead (`after`).
   */
  tick(): Date {
    this.last = Math.max(this.now().getTime(), this.last + 1);
    return new Date(this.last);
  }

  /** `now()`, or 1 ms after `previous` when the clock has not moved past it. */
  after(previous: Date | undefined): Date {
    const now = this.now();
    return previous && now.getTime() <= previous.getTime() ? new Date(previous.getTime() + 1) : now;
  }
}
