import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RateLimitModule } from '../common/rate-limit/rate-limit.module';
import { OpenApiModule } from '../docs/docs.module';
import { ActorsModule } from './actors/actors.module';
import { BlogModule } from './blog/blog.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { DurbarsModule } from './durbars/durbars.module';
import { EventsModule } from './events/events.module';
import { GroupsModule } from './groups/groups.module';
import { JobsModule } from './jobs/jobs.module';
import { MarketplaceModule } from './marketplace/marketplace.module';
import { PublicOpenApiController } from './openapi/public-openapi.controller';
import { PetitionsModule } from './petitions/petitions.module';
import { ContentVersionsRepository } from './platform/content-versions.repository';
import { PublicKeysRepository } from './platform/public-keys.repository';
import { PublicKeysService } from './platform/public-keys.service';
import { PublicPipeline } from './platform/public-pipeline';
import { PostsModule } from './posts/posts.module';
import { ProfilesModule } from './profiles/profiles.module';
import { ReviewsModule } from './reviews/reviews.module';
import { SafetyModule } from './safety/safety.module';
import { StatsModule } from './stats/stats.module';
import { SurveysModule } from './surveys/surveys.module';

/**
 * The public content API (/public/v1): the domain modules, each declaring its own controller and repository,
 * and the surface's platform — optional x-api-key, IP/key rate limits, HTTP caching (PublicPipeline, which
 * dispatches every public controller it discovers) — and the served contract.
 */
@Module({
  imports: [
    DiscoveryModule,
    OpenApiModule,
    RateLimitModule,
    CampaignsModule,
    PetitionsModule,
    ProfilesModule,
    StatsModule,
    EventsModule,
    JobsModule,
    SurveysModule,
    DurbarsModule,
    MarketplaceModule,
    BlogModule,
    ReviewsModule,
    SafetyModule,
    ActorsModule,
    PostsModule,
    GroupsModule,
  ],
  controllers: [PublicOpenApiController],
  providers: [PublicPipeline, PublicKeysRepository, PublicKeysService, ContentVersionsRepository],
})
export class ContentModule {}
