import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { OpenApiModule } from '../docs/docs.module';
import { CampaignsController } from './campaigns/campaigns.controller';
import { CampaignsRepository } from './campaigns/campaigns.repository';
import { EventsController } from './events/events.controller';
import { EventsRepository } from './events/events.repository';
import { JobsController } from './jobs/jobs.controller';
import { MarketplaceController } from './marketplace/marketplace.controller';
import { MarketplaceRepository } from './marketplace/marketplace.repository';
import { BlogController } from './blog/blog.controller';
import { BlogRepository } from './blog/blog.repository';
import {
  ActorsController,
  GroupsController,
  HazardsController,
  PostsController,
  ReviewEntitiesController,
} from './community/community.controller';
import { CommunityRepository } from './community/community.repository';
import { SurveysController } from './surveys/surveys.controller';
import { SurveysRepository } from './surveys/surveys.repository';
import { DurbarsController } from './durbars/durbars.controller';
import { DurbarsRepository } from './durbars/durbars.repository';
import { JobsRepository } from './jobs/jobs.repository';
import { PublicOpenApiController } from './openapi/public-openapi.controller';
import { PetitionsController } from './petitions/petitions.controller';
import { PetitionsRepository } from './petitions/petitions.repository';
import { PublicPipeline } from './platform/public-pipeline';
import { PublicKeysRepository } from './platform/public-keys.repository';
import { PublicKeysService } from './platform/public-keys.service';
import { ProfilesController } from './profiles/profiles.controller';
import { ProfilesRepository } from './profiles/profiles.repository';
import { StatsController } from './stats/stats.controller';
import { StatsRepository } from './stats/stats.repository';

/** The public content API (/public/v1): optional x-api-key, IP/key rate limits, HTTP caching, domain routes. */
@Module({
  imports: [DiscoveryModule, OpenApiModule, RateLimitModule],
  controllers: [
    PublicOpenApiController,
    CampaignsController,
    PetitionsController,
    ProfilesController,
    StatsController,
    EventsController,
    JobsController,
    SurveysController,
    DurbarsController,
    MarketplaceController,
    BlogController,
    ReviewEntitiesController,
    HazardsController,
    ActorsController,
    PostsController,
    GroupsController,
  ],
  providers: [
    PublicPipeline,
    PublicKeysRepository,
    PublicKeysService,
    CampaignsRepository,
    PetitionsRepository,
    ProfilesRepository,
    StatsRepository,
    EventsRepository,
    JobsRepository,
    SurveysRepository,
    DurbarsRepository,
    MarketplaceRepository,
    BlogRepository,
    CommunityRepository,
  ],
})
export class ContentModule {}
