import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One recorded event; `body` is the exact JSON sent to receivers (kept as text so retries send the same bytes). */
@Entity({ schema: 'visitor', name: 'event' })
export class EventRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') type: string;
  @Column('timestamptz') createdAt: Date;
  @Column('text') body: string;
}
