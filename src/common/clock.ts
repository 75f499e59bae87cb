import { Injectable } from '@nestjs/common';

/** Time is injected so retries, expiries, retention and rate windows are testable without sleeping. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
