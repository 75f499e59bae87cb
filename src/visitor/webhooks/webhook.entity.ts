import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ schema: 'visitor', name: 'webhook_endpoint' })
export class WebhookEndpointRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') url: string;
  @Column('text') description: string;
  @Column('text', { array: true }) enabledEvents: string[];
  @Column('text') status: 'enabled' | 'disabled';
  @Column('text', { nullable: true }) disabledReason: string | null;
  @Column('text') secretSealed: string;
  @Column('text', { nullable: true }) previousSecretSealed: string | null;
  @Column('timestamptz', { nullable: true }) previousSecretExpiresAt: Date | null;
  @Column('timestamptz', { nullable: true }) failingSince: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
  @Column('timestamptz', { nullable: true }) deletedAt: Date | null;
}

@Entity({ schema: 'visitor', name: 'webhook_delivery' })
export class WebhookDeliveryRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') eventId: string;
  @Column('text') endpointId: string;
  @Column('text') status: 'pending' | 'succeeded' | 'failed';
  @Column('integer') attemptCount: number;
  @Column('timestamptz', { nullable: true }) nextAttemptAt: Date | null;
  @Column('timestamptz', { nullable: true }) lockedUntil: Date | null;
  @Column('timestamptz', { nullable: true }) firstFailureAt: Date | null;
  @Column('timestamptz', { nullable: true }) lastAttemptAt: Date | null;
  @Column('integer', { nullable: true }) lastStatusCode: number | null;
  @Column('text', { nullable: true }) lastError: string | null;
  /** Set while the organisation's plan lacks live webhooks: the delivery waits, unattempted, for the plan. */
  @Column('timestamptz', { nullable: true }) heldSince: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}

@Entity({ schema: 'visitor', name: 'webhook_attempt' })
export class WebhookAttemptRow {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: string;
  @Column('text') deliveryId: string;
  @Column('integer') attemptNumber: number;
  @Column('timestamptz') attemptedAt: Date;
  @Column('integer', { nullable: true }) statusCode: number | null;
  @Column('integer') durationMs: number;
  @Column('text', { nullable: true }) error: string | null;
  @Column('text', { nullable: true }) responseExcerpt: string | null;
}
