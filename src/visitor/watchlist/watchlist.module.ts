import { Module, OnModuleInit } from '@nestjs/common';
import { EventSamples } from '../events/event-samples';
import { EventsModule } from '../events/events.module';
import { OrganisationsModule } from '../organisations/organisations.module';
import { PlatformModule } from '../platform/platform.module';
import { sampleMatch } from './watchlist.samples';
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
    this.samples.register(['watchlist'], sampleMatch);
  }
}
