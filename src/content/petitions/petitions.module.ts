import { Module } from '@nestjs/common';
import { PetitionsController } from './petitions.controller';
import { PetitionsRepository } from './petitions.repository';

@Module({ controllers: [PetitionsController], providers: [PetitionsRepository] })
export class PetitionsModule {}
