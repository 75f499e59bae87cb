import { Column, Entity, PrimaryColumn } from 'typeorm';

export type Channel = 'email' | 'sms' | 'whatsapp';

@Entity({ schema: 'visitor', name: 'message' })
export class MessageRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') channel: Channel;
  @Column('text') recipient: string;
  @Column('text', { nullable: true }) subject: string | null;
  @Column('text') body: string;
  @Column('text') provider: string;
  @Column('text') status: 'outbox' | 'sent' | 'failed';
  @Column('text', { nullable: true }) error: string | null;
  @Column('text', { nullable: true }) relatedId: string | null;
  @Column('timestamptz') createdAt: Date;
}
