import { Module } from '@nestjs/common';
import { VisitTypesRepository } from './visit-types.repository';
import { VisitTypesService } from './visit-types.service';

@Module({ providers: [VisitTypesRepository, VisitTypesService], exports: [VisitTypesService] })
export class VisitTypesModule {}
