import { Module } from '@nestjs/common';
import { DurbarsController } from './durbars.controller';
import { DurbarsRepository } from './durbars.repository';

@Module({ controllers: [DurbarsController], providers: [DurbarsRepository] })
export class DurbarsModule {}
