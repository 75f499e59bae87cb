import { Module } from '@nestjs/common';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';

@Module({ controllers: [GroupsController], providers: [GroupsRepository] })
export class GroupsModule {}
