import { Global, Module } from '@nestjs/common';
import { FormsRepository } from './forms.repository';
import { FormsService } from './forms.service';

@Global()
@Module({ providers: [FormsRepository, FormsService], exports: [FormsService] })
export class FormsModule {}
