import { Injectable } from '@nestjs/common';
import type { UnitOfWork } from '../database/unit-of-work';
import { OAuthModelRepository } from './oauth-model.repository';

/**
 * What other domains may ask of the authorization server's storage (`oauth.model`, the engine's codes, tokens,
 * sessions and grants): the /v1 resolver's access-token lookup, ending grants and sessions in the caller's
 * transaction, the hourly purge. The rows themselves are oauth/'s alone.
 */
@Injectable()
export class OAuthModelsService {
  constructor(private readonly repo: OAuthModelRepository) {}

  /** An access token by the hash of its value (`oauthIdHash`): its grant, scope, audience and expiry. */
  accessToken(idHash: string): ReturnType<OAuthModelRepository['accessToken']> {
    return this.repo.accessToken(idHash);
  }

  /** Ends these grants: every code and token issued under them goes, with the caller's transaction. */
  revokeGrants(uow: UnitOfWork, grantIds: string[]): Promise<void> {
    return this.repo.deleteGrants(uow.manager, grantIds);
  }

  /** Ends the person's sign-in sessions at the authorization server, with the caller's transaction. */
  endSessions(uow: UnitOfWork, accountId: string): Promise<void> {
    return this.repo.deleteSessions(uow.manager, accountId);
  }

  /** Deletes the rows past their expiry (codes, tokens, sessions, interactions, grants); returns how many. */
  purgeExpired(before: Date): Promise<number> {
    return this.repo.purgeExpired(before);
  }
}
