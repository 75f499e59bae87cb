import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An organisation's decision on an OAuth client (the first connection of an app needs an Owner or Admin). */
@Entity({ schema: 'oauth', name: 'approval' })
export class ApprovalEntity {
  @PrimaryColumn('text') organisationId: string;
  @PrimaryColumn('text') clientId: string;
  @Column('text') clientName: string;
  @Column('text') clientSource: string;
  @Column('text') status: string;
  @Column('text') requestedBy: string;
  @Column('timestamptz') requestedAt: Date;
  @Column('text', { nullable: true }) decidedBy: string | null;
  @Column('timestamptz', { nullable: true }) decidedAt: Date | null;
}

/** One connection of an app: a grant a person gave for their organisation, in one mode, with its scopes. */
@Entity({ schema: 'oauth', name: 'connection' })
export class ConnectionEntity {
  @PrimaryColumn('text') grantId: string;
  @Column('text') organisationId: string;
  @Column('text') clientId: string;
  @Column('text') accountId: string;
  @Column('boolean') livemode: boolean;
  @Column('text', { array: true }) scopes: string[];
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz', { nullable: true }) lastUsedAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
}
