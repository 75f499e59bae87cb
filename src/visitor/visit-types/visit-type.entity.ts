import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ schema: 'visitor', name: 'visit_type' })
export class VisitTypeRow {
  @PrimaryColumn('text') organisationId: string;
  @PrimaryColumn('boolean') livemode: boolean;
  @PrimaryColumn('text') key: string;
  @Column('text') name: string;
  @Column('boolean') enabled: boolean;
  @Column('boolean') preRegistration: boolean;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
