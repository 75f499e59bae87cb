import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { PeriodicTask } from '../../common/periodic-task';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { OAuthModelsService } from '../../oauth/oauth-models.service';

/**
 * Deletes the authorization server's rows past their expiry (codes, tokens, sessions, interactions, grants),
 * hourly, wherever the visitor area's background work runs (a worker process serves no surface).
 */
@Injectable()
export class OAuthPurge extends PeriodicTask {
  protected readonly logger = new Logger('OAuth');
  protected readonly what = 'expired OAuth rows purged';

  constructor(
    private readonly models: OAuthModelsService,
    private readonly clock: Clock,
    @InjectConfig() config: Config,
  ) {
    super(config);
  }

  protected work(): Promise<number> {
    return this.models.purgeExpired(this.clock.now());
  }
}
