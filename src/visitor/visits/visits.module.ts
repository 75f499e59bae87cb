import { Module, OnModuleInit } from '@nestjs/common';
import { QueueModule } from '../../common/queue/queue.module';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { FilesModule } from '../files/files.module';
import { FilesService } from '../files/files.service';
import { FormsModule } from '../forms/forms.module';
import { MessagesModule } from '../messages/messages.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PeopleModule } from '../people/people.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitTypesModule } from '../visit-types/visit-types.module';
import { VisitTypesService } from '../visit-types/visit-types.service';
import { WatchlistModule } from '../watchlist/watchlist.module';
import { PassSender } from './pass.sender';
import { PassPageController } from './pass-page.controller';
import { PassPageService } from './pass-page.service';
import { sampleVisit } from './visit.samples';
import { VISITS_SEND_PASS, VisitsJobs } from './visits.jobs';
import { VisitsController } from './visits.controller';
import { PassesRepository } from './passes.repository';
import { PassesService } from './passes.service';
import { VisitorRecordsService } from './visitor-records.service';
import { VisitorsRepository } from './visitors.repository';
import { VisitsRepository } from './visits.repository';
import { VisitsService } from './visits.service';

/**
 * Visits, visitor records and passes; /v1/visits and the pass page (/passes/<token>). The pass sweeper and the no-show task (`@Periodic`) run where
 * RUN_WORKER is on; the processor of `visits.send-pass` is composed by `VisitorWorkerModule`.
 */
@Module({
  imports: [
    PlatformModule,
    EventsModule,
    FilesModule,
    FormsModule,
    MessagesModule,
    OrganisationsModule,
    PeopleModule,
    VisitTypesModule,
    WatchlistModule,
    QueueModule.forJobs(VISITS_SEND_PASS),
  ],
  controllers: [VisitsController, PassPageController],
  providers: [
    VisitsRepository,
    VisitorsRepository,
    PassesRepository,
    VisitsService,
    VisitorRecordsService,
    PassesService,
    PassSender,
    VisitsJobs,
    PassPageService,
  ],
  exports: [VisitsService, VisitorRecordsService, PassSender],
})
export class VisitsModule implements OnModuleInit {
  constructor(
    private readonly samples: EventSamples,
    private readonly visits: VisitsService,
    private readonly files: FilesService,
    private readonly visitTypes: VisitTypesService,
  ) {}

  onModuleInit(): void {
    this.samples.register(['visit', 'pass'], sampleVisit);
    // the domains below ask about visits through these answers (they cannot import visits)
    this.files.answerVisitorsWith((uow, tenant, id) => this.visits.visitorOf(uow, tenant, id));
    this.visitTypes.answerUsesWith((uow, org, type) => this.visits.hasVisitOfType(uow, org, type));
  }
}
