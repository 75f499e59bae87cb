import { Global, Module } from '@nestjs/common';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';

@Global()
@Module({ providers: [MessagesRepository, MessagesService], exports: [MessagesService, MessagesRepository] })
export class MessagesModule {}
