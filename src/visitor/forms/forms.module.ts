import { Module } from '@nestjs/common';
import { PlatformModule } from '../platform/platform.module';
import { FormsController } from './forms.controller';
import { FormsRepository } from './forms.repository';
import { FormsService } from './forms.service';

/** Custom-field forms of visits and people; GET /v1/forms. */
@Module({
  imports: [PlatformModule],
  controllers: [FormsController],
  providers: [FormsRepository, FormsService],
  exports: [FormsService],
})
export class FormsModule {}
