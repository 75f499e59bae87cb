import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

/** Console accounts (people who sign in to the console) and their sessions. */
@Module({
  imports: [AuditModule],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsRepository, AccountsService],
})
export class AccountsModule {}
