import { DynamicModule, INestApplicationContext, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Config } from '../config/config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { CommonModule } from '../common/common.module';
import { RouteTable, RouteTableModule } from '../common/http/route-table';
import { RedisModule } from '../redis/redis.module';
import { OpsModule } from '../ops/ops.module';
import { AccountsModule } from '../visitor/accounts/accounts.module';
import { ApiKeysModule } from '../visitor/api-keys/api-keys.module';
import { AttendanceModule } from '../visitor/attendance/attendance.module';
import { BookingTypesModule } from '../visitor/booking-types/booking-types.module';
import { EventsModule } from '../visitor/events/events.module';
import { OrganisationsModule } from '../visitor/organisations/organisations.module';
import { PeopleModule } from '../visitor/people/people.module';
import { VisitsModule } from '../visitor/visits/visits.module';
import { WebhooksModule } from '../visitor/webhooks/webhooks.module';
import { TestHelpersModule } from '../visitor/test-helpers/test-helpers.module';
import { PublicKeysRepository } from '../content/platform/public-keys.repository';
import { PublicKeysService } from '../content/platform/public-keys.service';

/**
 * The object graph of the operator CLI and the seeders: the server's own modules, with the server's configuration —
 * the infrastructure (config, database, Redis, clock, request log) and the whole visitor area (every domain service,
 * and every event subscriber: webhooks' fan-out writes a delivery for an event a command records) — plus the public
 * content API's key service. Left out is only what serves HTTP and costs start-up time: the content, console/OAuth
 * and docs surfaces, pages. No HTTP server, and RUN_WORKER is off, so no BullMQ worker and no periodic task starts.
 */
@Module({})
export class CliModule {
  static forRoot(config: Config, databaseUrl: string): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, 2),
        RouteTableModule.forRoot(new RouteTable()),
        CommonModule,
        RedisModule,
        OpsModule,
        OrganisationsModule,
        ApiKeysModule,
        AccountsModule,
        PeopleModule,
        AttendanceModule,
        BookingTypesModule,
        EventsModule,
        VisitsModule,
        WebhooksModule,
        TestHelpersModule,
      ],
      providers: [PublicKeysRepository, PublicKeysService],
    };
  }
}

/** The CLI's Nest application context (initialised; the caller closes it), never running background work. */
export async function createCliContext(
  config: Config,
  databaseUrl: string,
  logger: LoggerService,
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    CliModule.forRoot({ ...config, runWorker: false }, databaseUrl),
    { logger, abortOnError: false },
  );
  await app.init();
  return app;
}

/** Nest's warnings and errors as lines on the CLI's stderr (through `write`, which redacts); nothing on stdout. */
export function cliLogger(write: (line: string) => void): LoggerService {
  const line =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) => {
      const context = typeof rest[rest.length - 1] === 'string' ? `${rest[rest.length - 1] as string}: ` : '';
      const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
      write(`${level} ${context}${text}`);
    };
  return {
    log: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
    warn: line('warning'),
    error: line('error'),
    fatal: line('error'),
  };
}
