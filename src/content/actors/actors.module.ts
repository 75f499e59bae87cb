import { Module } from '@nestjs/common';
import { ActorsController } from './actors.controller';
import { ActorsRepository } from './actors.repository';

@Module({ controllers: [ActorsController], providers: [ActorsRepository] })
export class ActorsModule {}
