import { Module } from '@nestjs/common';
import { MarketplaceController } from './marketplace.controller';
import { MarketplaceRepository } from './marketplace.repository';

@Module({ controllers: [MarketplaceController], providers: [MarketplaceRepository] })
export class MarketplaceModule {}
