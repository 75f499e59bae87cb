import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { FormSchema } from './custom-fields.validator';

@Entity({ schema: 'visitor', name: 'form' })
export class FormRow {
  @PrimaryColumn('text') organisationId: string;
  @PrimaryColumn('boolean') livemode: boolean;
  @PrimaryColumn('text') kind: 'visit' | 'person';
  @PrimaryColumn('integer') version: number;
  @Column('jsonb') schema: FormSchema;
  @Column('timestamptz') createdAt: Date;
}
