import { Module } from '@nestjs/common';
import { ReviewEntitiesController } from './review-entities.controller';
import { ReviewEntitiesRepository } from './review-entities.repository';

@Module({ controllers: [ReviewEntitiesController], providers: [ReviewEntitiesRepository] })
export class ReviewsModule {}
