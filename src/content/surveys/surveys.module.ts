import { Module } from '@nestjs/common';
import { SurveysController } from './surveys.controller';
import { SurveysRepository } from './surveys.repository';

@Module({ controllers: [SurveysController], providers: [SurveysRepository] })
export class SurveysModule {}
