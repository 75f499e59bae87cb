import { ConsoleLogger, ConsoleLoggerOptions, LogLevel } from '@nestjs/common';

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
 * main.ts prints; and every line, error and stack passes through `redact` (the config's secrets, see
 * `configRedactor`) before it is written, in text and JSON form alike.
 */
export class QuietStartLogger extends ConsoleLogger {
  constructor(
    context: string,
    options: ConsoleLoggerOptions,
    private readonly redactText: (text: string) => string = (text) => text,
  ) {
    super(context, options);
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) super.debug(message, ...rest);
    else super.log(message, ...rest);
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
    params?: Record<string, unknown>,
  ): void {
    super.printMessages(
      messages.map((m) => this.redactValue(this.resolveMessage(m))),
      context,
      logLevel,
      writeStreamType,
      typeof errorStack === 'string' ? this.redactText(errorStack) : errorStack,
      params,
    );
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(stack && this.redactText(stack));
  }

  private redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (value instanceof Error) {
      const copy = new Error(this.redactText(value.message));
      copy.name = value.name;
      copy.stack = value.stack && this.redactText(value.stack);
      return copy;
    }
    if (value !== null && typeof value === 'object') {
      try {
        return JSON.parse(this.redactText(JSON.stringify(value))) as unknown;
      } catch {
        return this.redactText(String(value)); // circular: printed as text
      }
    }
    return value;
  }
}
