import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ schema: 'visitor', name: 'person' })
export class PersonRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') name: string;
  @Column('text') email: string;
  @Column('text', { nullable: true }) phone: string | null;
  @Column('text', { nullable: true }) department: string | null;
  @Column('text', { nullable: true }) jobTitle: string | null;
  @Column('text', { nullable: true }) employeeNumber: string | null;
  @Column('text', { array: true }) siteIds: string[];
  @Column('boolean') canHost: boolean;
  @Column('boolean') active: boolean;
  @Column('jsonb') customFields: Record<string, unknown>;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
