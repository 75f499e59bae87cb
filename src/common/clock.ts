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
   * (events of one transition, sites of one organisation) keep their order in `(created_at, id)` keyset lists
   * instead of falling back to the order of their random ids when they share a millisecond.
   */
  tick(): Date {
    this.last = Math.max(this.now().getTime(), this.last + 1);
    return new Date(this.last);
  }
}
