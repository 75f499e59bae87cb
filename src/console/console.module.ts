import { Module } from '@nestjs/common';
import { OpsModule } from '../ops/ops.module';
import { SupportController } from './support/support.controller';
import { OperatorGuard } from './operator.guard';

@Module({ imports: [OpsModule], controllers: [SupportController], providers: [OperatorGuard] })
export class ConsoleModule {}
