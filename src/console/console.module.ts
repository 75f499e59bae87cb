import { Module } from '@nestjs/common';
import { OpsModule } from '../ops/ops.module';
import { SupportController } from './support/support.controller';
import { OperatorGuard } from './operator.guard';
import { AccountsRepository } from './auth/accounts.repository';
import { AccountsService } from './auth/accounts.service';
import { ConsoleSessionGuard } from './auth/console-auth';
import { SessionController, SignInLimitGuard } from './auth/session.controller';
import { ConsoleApiKeysController } from './auth/api-keys.controller';
import {
  ConsoleWebhookDeliveriesController,
  SupportDeliveriesController,
} from './webhooks/webhook-deliveries.controller';

@Module({
  imports: [OpsModule],
  controllers: [
    SupportController,
    SessionController,
    ConsoleApiKeysController,
    ConsoleWebhookDeliveriesController,
    SupportDeliveriesController,
  ],
  providers: [OperatorGuard, AccountsRepository, AccountsService, ConsoleSessionGuard, SignInLimitGuard],
})
export class ConsoleModule {}
