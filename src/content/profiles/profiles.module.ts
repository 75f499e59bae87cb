import { Module } from '@nestjs/common';
import { ProfilesController } from './profiles.controller';
import { ProfilesRepository } from './profiles.repository';

@Module({ controllers: [ProfilesController], providers: [ProfilesRepository] })
export class ProfilesModule {}
