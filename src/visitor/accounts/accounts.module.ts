import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { OAuthModelsModule } from '../../oauth/oauth-models.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { MessagesModule } from '../messages/messages.module';
import { SignInAttempts } from './sign-in-attempts';
import { SignInLimitGuard } from './sign-in-limit.guard';
import { RateLimitModule } from '../../common/rate-limit/rate-limit.module';

/** Console accounts (people who sign in to the console) and their sessions. */
@Module({
  imports: [AuditModule, MessagesModule, RateLimitModule, OAuthModelsModule],
  providers: [AccountsRepository, AccountsService, SignInAttempts, SignInLimitGuard],
  exports: [AccountsService, SignInAttempts, SignInLimitGuard],
})
export class AccountsModule {}
