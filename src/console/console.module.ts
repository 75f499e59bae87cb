import { Module } from '@nestjs/common';
import { OpsModule } from '../ops/ops.module';
import { MessagesModule } from '../visitor/messages/messages.module';
import { VisitTypesModule } from '../visitor/visit-types/visit-types.module';
import { ConsoleFrontDoorController } from './front-door/front-door.controller';
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
  imports: [OpsModule, MessagesModule, VisitTypesModule],
  controllers: [
    SupportController,
    SessionController,
    ConsoleApiKeysController,
    ConsoleWebhookDeliveriesController,
    SupportDeliveriesController,
    ConsoleFrontDoorController,
  ],
  providers: [OperatorGuard, AccountsRepository, AccountsService, ConsoleSessionGuard, SignInLimitGuard],
})
export class ConsoleModule {}
