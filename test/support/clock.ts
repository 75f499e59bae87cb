import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Clock } from '../../src/common/clock';

/**
 * Puts the application's clock under the test's control: `Clock.now()` answers `current()` (ms since the epoch),
 * or the wall clock while that is null.
 */
export function controlClock(app: NestFastifyApplication, current: () => number | null): void {
  const clock = app.get(Clock);
  const real = clock.now.bind(clock);
  jest.spyOn(clock, 'now').mockImplementation(() => {
    const now = current();
    return now === null ? real() : new Date(now);
  });
}
