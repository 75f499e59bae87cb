import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { PlatformModule } from '../platform/platform.module';
import { EventSamples } from './event-samples';
import { EventsJobs } from './events.jobs';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { RequestIdScope } from './request-scope';

/**
 * The bottom of the domains: the event table and the outbox write (`EventsService.record`), GET /v1/events.
 * Domains import this module to record events; webhooks subscribe to it. It imports no domain. `RequestIdScope`
 * (app-wide) makes each route's request id current, so an event records the request that caused it.
 */
@Module({
  imports: [PlatformModule],
  controllers: [EventsController],
  providers: [
    EventsRepository,
    EventsService,
    EventSamples,
    EventsJobs,
    { provide: APP_INTERCEPTOR, useClass: RequestIdScope },
  ],
  exports: [EventsService, EventSamples],
})
export class EventsModule {}
