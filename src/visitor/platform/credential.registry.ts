import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Credential, CredentialResolver } from './credential';

/**
 * The credential kinds the /v1 guard chain knows, chosen by token prefix. API keys register here; the OAuth
 * module registers its access tokens the same way.
 */
@Injectable()
export class CredentialRegistry {
  private readonly resolvers: CredentialResolver[] = [];

  register(resolver: CredentialResolver): void {
    this.resolvers.push(resolver);
  }

  async resolve(token: string, req?: FastifyRequest): Promise<Credential | 'revoked' | null> {
    for (const r of this.resolvers)
      if (r.prefixes.some((p) => token.startsWith(p))) return r.resolve(token, req);
    return null;
  }
}
