import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A shift pattern: local start and end times at a site, grace minutes, ISO days of the week (1 = Monday). */
@Entity({ schema: 'visitor', name: 'shift' })
export class ShiftRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') name: string;
  @Column('text') siteId: string;
  @Column('time') startTime: string;
  @Column('time') endTime: string;
  @Column('int') graceMinutes: number;
  @Column('int', { array: true }) daysOfWeek: number[];
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}

/** One clock-in or clock-out from a terminal. */
@Entity({ schema: 'visitor', name: 'attendance_event' })
export class ClockEventRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') personId: string;
  @Column('text') siteId: string;
  @Column('text') direction: 'in' | 'out';
  @Column('timestamptz') occurredAt: Date;
  @Column('date') localDate: string;
  @Column('text') method: string;
  @Column('text', { nullable: true }) deviceId: string | null;
  @Column('text', { nullable: true }) evidenceKind: string | null;
  @Column('text', { nullable: true }) evidenceRef: string | null;
  @Column('boolean') offline: boolean;
  @Column('int', { nullable: true }) lateMinutes: number | null;
  @Column('text', { nullable: true }) shiftId: string | null;
  @Column('timestamptz') createdAt: Date;
}
