import { ConsoleLogger } from '@nestjs/common';

/** Nest's start-up chatter: one line per module, controller and route. */
const START_UP_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/**
 * The service's logger: Nest's console logger, except that Nest's start-up lines (modules initialised, every route
 * mapped: ~140 lines) are debug lines, shown only with LOG_LEVEL=debug, so a start ends with the short block
 * main.ts prints.
 */
export class QuietStartLogger extends ConsoleLogger {
  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) super.debug(message, ...rest);
    else super.log(message, ...rest);
  }
}
