import { Injectable } from '@nestjs/common';
import type { Caller } from '../platform/current';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import { AuditRepository } from './audit.repository';
import type { AuditEventQuery } from './dto/audit-event.query';
import { AuditEventResponse, toAuditEventResponse } from './dto/audit-event.response';

/** Reading the audit trail (GET /v1/audit-events): newest first, within the plan's audit-trail period. */
@Injectable()
export class AuditTrailService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /**
   * `more`: the console's filters (an actor, a period); `from` later than the plan's period narrows it, never
   * widens it.
   */
  page(
    caller: Pick<Caller, 'tenant' | 'hiddenBefore'>,
    q: AuditEventQuery,
    more: { actor?: { type: string; id?: string }; from?: Date; until?: Date } = {},
  ): Promise<Page<AuditEventResponse>> {
    const { tenant, hiddenBefore } = caller;
    const since = more.from && (!hiddenBefore || more.from > hiddenBefore) ? more.from : hiddenBefore;
    return this.cursors.codec.createdPage(
      'audit-events',
      tenant,
      q,
      (limit, before) =>
        this.repo.list(tenant.organisationId, tenant.livemode, {
          limit,
          action: q.action,
          since,
          before,
          actor: more.actor,
          until: more.until,
        }),
      toAuditEventResponse,
    );
  }

  /** The audit rows one request wrote (the console's request page), received at `at` and lasting `ms`. */
  async ofRequest(
    organisationId: string,
    requestId: string,
    at: Date,
    ms: number,
  ): Promise<AuditEventResponse[]> {
    const to = new Date(at.getTime() + ms + 60_000);
    return (await this.repo.ofRequest(organisationId, requestId, at, to)).map(toAuditEventResponse);
  }
}
