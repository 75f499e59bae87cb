import { Module } from '@nestjs/common';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';

@Module({ controllers: [StatsController], providers: [StatsRepository] })
export class StatsModule {}
