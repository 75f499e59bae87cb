import { Module } from '@nestjs/common';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';

@Module({ controllers: [CampaignsController], providers: [CampaignsRepository] })
export class CampaignsModule {}
