import { Module } from '@nestjs/common';
import { OpsModule } from '../../ops/ops.module';
import { EventsModule } from '../events/events.module';
import { PlatformModule } from '../platform/platform.module';
import { EventStreamController } from './event-stream.controller';
import { EventStreamService } from './event-stream.service';
import { PgNotifications } from './pg-notifications';
import { SseStreams } from './sse-streams';

/** GET /v1/events/stream and GET /v1/requests/stream: test-mode events and requests as they happen (SSE). */
@Module({
  imports: [PlatformModule, EventsModule, OpsModule],
  controllers: [EventStreamController],
  providers: [EventStreamService, PgNotifications, SseStreams],
})
export class EventStreamModule {}
