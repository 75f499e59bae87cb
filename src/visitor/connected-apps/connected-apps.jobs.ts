import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { Periodic } from '../../common/periodic';
import { OAuthModelsService } from '../../oauth/oauth-models.service';

/** Connected apps' periodic work. */
@Injectable()
export class ConnectedAppsJobs {
  constructor(
    private readonly models: OAuthModelsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Deletes the authorization server's rows past their expiry (codes, tokens, sessions, interactions, grants),
   * hourly, wherever the visitor area's background work runs (a worker process serves no surface).
   */
  @Periodic({
    name: 'connected-apps.purge',
    every: 'hour',
    what: 'expired OAuth rows purged',
    formerly: 'OAuthPurge',
  })
  purge(): Promise<number> {
    return this.models.purgeExpired(this.clock.now());
  }
}
