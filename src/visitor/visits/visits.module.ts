import { BullModule } from '@nestjs/bullmq';
import { Module, OnModuleInit } from '@nestjs/common';
import { QueueModule } from '../../common/queue/queue.module';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { FormsModule } from '../forms/forms.module';
import { MessagesModule } from '../messages/messages.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { WatchlistModule } from '../watchlist/watchlist.module';
import { PASS_QUEUE, PassQueue } from './pass.queue';
import { PassSender } from './pass.sender';
import { PassPageController } from './pass-page.controller';
import { PassPageService } from './pass-page.service';
import { sampleVisit } from './visit.samples';
import { NoShowJob, PassSweeper } from './visits.jobs';
import { VisitsController } from './visits.controller';
import { PassesRepository } from './passes.repository';
import { PassesService } from './passes.service';
import { VisitorRecordsService } from './visitor-records.service';
import { VisitorsRepository } from './visitors.repository';
import { VisitsRepository } from './visits.repository';
import { VisitsService } from './visits.service';

/**
 * Visits, visitor records and passes; /v1/visits and the pass page (/passes/<token>). The pass sweeper and the no-show job run where RUN_WORKER is on
 * (PeriodicTask); the pass processor is composed by `VisitorWorkerModule`.
 */
@Module({
  imports: [
    PlatformModule,
    EventsModule,
    FormsModule,
    MessagesModule,
    OrganisationsModule,
    PeopleModule,
    WatchlistModule,
    QueueModule,
    BullModule.registerQueue({ name: PASS_QUEUE }),
  ],
  controllers: [VisitsController, PassPageController],
  providers: [
    VisitsRepository,
    VisitorsRepository,
    PassesRepository,
    VisitsService,
    VisitorRecordsService,
    PassesService,
    PassQueue,
    PassSender,
    PassSweeper,
    NoShowJob,
    PassPageService,
  ],
  exports: [VisitsService, VisitorRecordsService, PassQueue, PassSender],
})
export class VisitsModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['visit', 'pass'], sampleVisit);
  }
}
