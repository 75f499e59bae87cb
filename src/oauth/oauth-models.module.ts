import { Module } from '@nestjs/common';
import { OAuthModelRepository } from './oauth-model.repository';
import { OAuthModelsService } from './oauth-models.service';

/**
 * The authorization server's storage as a service for the domains that end its grants and sessions (connected
 * apps, accounts) or look its access tokens up (the /v1 resolver), loaded wherever they are (also in a worker,
 * which serves no OAuth endpoint).
 */
@Module({ providers: [OAuthModelRepository, OAuthModelsService], exports: [OAuthModelsService] })
export class OAuthModelsModule {}
