import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { rows } from '../../database/sql';
import type { UnitOfWork } from '../../database/unit-of-work';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import { assertTenant, Tenant } from '../platform/tenant';
import { change } from '../../database/sql';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

export type Channel = 'email' | 'sms' | 'whatsapp';

/** A message sent or kept in the outbox (`visitor.message`); every message is a row. */
export interface MessageRow {
  id: string;
  organisationId: string;
  livemode: boolean;
  channel: Channel;
  recipient: string;
  subject: string | null;
  body: string;
  provider: string;
  status: 'outbox' | 'sent' | 'failed';
  error: string | null;
  relatedId: string | null;
  createdAt: Date;
}

@Injectable()
@HoldsVisitorData(40)
@HoldsSandboxData(14)
export class MessagesRepository implements VisitorDataHolder, SandboxDataHolder {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Sandbox reset: the test-mode tenant's messages (the test outbox). */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { affected } = await change(
      uow.manager,
      `DELETE FROM visitor.message WHERE organisation_id = $1 AND livemode = $2`,
      [tenant.organisationId, tenant.livemode],
    );
    return Number(affected ?? 0);
  }

  /** `manager`: the caller's transaction, so the row commits (or not) with the change that sent it. */
  async insert(row: MessageRow, manager?: EntityManager): Promise<void> {
    assertTenant(row);
    await (manager ?? this.ds).query(
      `INSERT INTO visitor.message (id, organisation_id, livemode, channel, recipient, subject, body, provider, status,
                                    error, related_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        row.id,
        row.organisationId,
        row.livemode,
        row.channel,
        row.recipient,
        row.subject,
        row.body,
        row.provider,
        row.status,
        row.error,
        row.relatedId,
        row.createdAt,
      ],
    );
  }

  /** Newest first, keyset-paged on (created_at, id). */
  list(
    tenant: { organisationId: string; livemode: boolean },
    limit: number,
    before?: { createdAt: Date; id: string },
  ): Promise<MessageRow[]> {
    const values: unknown[] = [tenant.organisationId, tenant.livemode];
    if (before) values.push(before.createdAt, before.id);
    values.push(limit);
    return rows<MessageRow>(
      this.ds,
      `SELECT id, organisation_id AS "organisationId", livemode, channel, recipient, subject, body, provider, status,
              error, related_id AS "relatedId", created_at AS "createdAt"
         FROM visitor.message
        WHERE organisation_id = $1 AND livemode = $2${before ? ' AND (created_at, id) < ($3, $4)' : ''}
        ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
  }

  /** Erasure: messages to the visitor or about their visits keep only their status and channel. */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId, relatedIds }: Erasure): Promise<void> {
    assertTenant(tenant);
    await uow.manager.query(
      `UPDATE visitor.message SET recipient = '[erased]', body = '[erased]', subject = NULL,
              error = CASE WHEN error IS NOT NULL THEN '[erased]' END
        WHERE organisation_id = $2 AND livemode = $3 AND (related_id = ANY($1) OR related_id = $4)`,
      [relatedIds, tenant.organisationId, tenant.livemode, visitorId],
    );
  }
}
