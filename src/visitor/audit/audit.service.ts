import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { AuditRepository } from './audit.repository';

/** Who did it: an API key, a console account, an operator (CLI), or the system itself. */
export interface Actor {
  type: 'api_key' | 'oauth_token' | 'console_account' | 'operator' | 'system';
  id: string | null;
}

export interface AuditEntry {
  organisationId: string;
  /** null: organisation-wide (sign-ins, key management), shown in both modes' trails. */
  livemode: boolean | null;
  action: string;
  actor: Actor;
  target?: { type: string; id: string };
  data?: Record<string, unknown>;
  request?: FastifyRequest;
}

/** Records key creation, revocation and use, sign-ins and admin actions. */
@Injectable()
export class AuditService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  async record(e: AuditEntry, m: EntityManager | null = null): Promise<void> {
    await this.repo.insert(m, {
      id: newId('audit'),
      organisation_id: e.organisationId,
      livemode: e.livemode,
      action: e.action,
      actor_type: e.actor.type,
      actor_id: e.actor.id,
      target_type: e.target?.type ?? null,
      target_id: e.target?.id ?? null,
      ip: e.request?.ip ?? null,
      request_id: e.request ? String(e.request.id) : null,
      data: e.data ?? {},
      created_at: this.clock.tick(),
    });
  }
}
