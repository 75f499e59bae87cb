import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { EventSamples } from './event-samples';
import { EventsJobs } from './events.jobs';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

/**
 * The bottom of the domains: the event table and the outbox write (`EventsService.record`), GET /v1/events.
 * Domains import this module to record events; webhooks subscribe to it. It imports no domain.
 */
@Module({
  imports: [PlatformModule],
  controllers: [EventsController],
  providers: [EventsRepository, EventsService, EventSamples, EventsJobs],
  exports: [EventsService, EventSamples],
})
export class EventsModule {}
