import { Module, OnModuleInit } from '@nestjs/common';
import { newId } from '../../common/ids';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PlatformModule } from '../platform/platform.module';
import { toMatchResponse } from './dto/watchlist.response';
import { WatchlistController } from './watchlist.controller';
import { WatchlistRepository } from './watchlist.repository';
import { WatchlistService } from './watchlist.service';

/** The watchlist (/v1/watchlist-entries) and the screening visits call. */
@Module({
  imports: [PlatformModule, EventsModule, OrganisationsModule],
  controllers: [WatchlistController],
  providers: [WatchlistRepository, WatchlistService],
  exports: [WatchlistService],
})
export class WatchlistModule implements OnModuleInit {
  constructor(private readonly samples: EventSamples) {}

  onModuleInit(): void {
    this.samples.register(['watchlist'], (_type, _tenant, now) => ({
      ...toMatchResponse({
        id: newId('wlm'),
        entry_id: newId('watch'),
        visit_id: newId('visit'),
        visitor_id: newId('visitor'),
        field: 'name',
        score: 0.85,
        explanation: "name matches alias 'Kwame Mensah': Kwame initial; Mensah exact",
        severity: 'high',
        trigger: 'visit.created',
        created_at: now,
      }),
    }));
  }
}
