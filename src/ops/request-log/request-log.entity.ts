import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One row per request. The table has no primary key (see migration RequestLogKeys): `requestId` is declared
 * primary here for TypeORM's identity map only, backed by a plain index.
 */
@Entity({ schema: 'ops', name: 'request_log' })
export class RequestLogEntry {
  @PrimaryColumn('text')
  requestId: string;

  @Column('text', { nullable: true })
  errorRef: string | null;

  @Column('timestamptz')
  receivedAt: Date;

  @Column('text')
  surface: string;

  @Column('text')
  method: string;

  @Column('text')
  path: string;

  @Column('smallint')
  status: number;

  @Column('text', { nullable: true })
  errorCode: string | null;

  @Column('real')
  durationMs: number;

  @Column('text', { nullable: true })
  clientIp: string | null;

  @Column('text', { nullable: true })
  organisationId: string | null;

  @Column('text', { nullable: true })
  credentialId: string | null;

  @Column('boolean', { nullable: true })
  livemode: boolean | null;
}
