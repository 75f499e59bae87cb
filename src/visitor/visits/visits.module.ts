import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { Config } from '../../config/config';
import { MessagesModule } from '../messages/messages.module';
import { PeopleModule } from '../people/people.module';
import { VisitTypesModule } from '../visit-types/visit-types.module';
import { PASS_QUEUE, PassQueue } from './pass.queue';
import { PassSender } from './pass.sender';
import { NoShowJob, PassProcessor, PassSweeper } from './visits.jobs';
import { VisitsRepository } from './visits.repository';
import { VisitsService } from './visits.service';

/** Visits, visitor records and passes; the pass sender, its sweeper and the no-show job run on workers. */
@Module({})
export class VisitsModule {
  static forRoot(config: Config): DynamicModule {
    const worker = config.runWorker ? [PassProcessor, PassSweeper, NoShowJob] : [];
    return {
      module: VisitsModule,
      global: true,
      imports: [
        MessagesModule,
        PeopleModule,
        VisitTypesModule,
        BullModule.registerQueue({ name: PASS_QUEUE }),
      ],
      providers: [VisitsRepository, VisitsService, PassQueue, PassSender, ...worker],
      exports: [VisitsRepository, VisitsService, PassSender, PassQueue, ...worker],
    };
  }
}
