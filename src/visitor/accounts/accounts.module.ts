import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { MessagesModule } from '../messages/messages.module';
import { SignInAttempts } from './sign-in-attempts';

/** Console accounts (people who sign in to the console) and their sessions. */
@Module({
  imports: [AuditModule, MessagesModule],
  providers: [AccountsRepository, AccountsService, SignInAttempts],
  exports: [AccountsRepository, AccountsService, SignInAttempts],
})
export class AccountsModule {}
