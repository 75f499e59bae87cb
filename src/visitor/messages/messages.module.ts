import { Module } from '@nestjs/common';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';

/** Outgoing messages (passes, notices) with channel fallback; the table is the test outbox. */
@Module({ providers: [MessagesRepository, MessagesService], exports: [MessagesService] })
export class MessagesModule {}
