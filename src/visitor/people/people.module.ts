import { Module } from '@nestjs/common';
import { PeopleRepository } from './people.repository';
import { PeopleService } from './people.service';

@Module({ providers: [PeopleRepository, PeopleService], exports: [PeopleService, PeopleRepository] })
export class PeopleModule {}
