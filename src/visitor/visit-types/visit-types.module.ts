import { Module } from '@nestjs/common';
import { FormsModule } from '../forms/forms.module';
import { PlatformModule } from '../platform/platform.module';
import { VisitTypesController } from './visit-types.controller';
import { VisitTypesRepository } from './visit-types.repository';
import { VisitTypesService } from './visit-types.service';

/** Visit types (built-in and the organisation's own) with their public forms; /v1/visit-types. */
@Module({
  imports: [PlatformModule, FormsModule],
  controllers: [VisitTypesController],
  providers: [VisitTypesRepository, VisitTypesService],
  exports: [VisitTypesService],
})
export class VisitTypesModule {}
