import { Column, Entity, PrimaryColumn } from 'typeorm';

const pad = (n: number) => String(n).padStart(2, '0');
/** The driver reads a `date` as local midnight: its calendar date back as `yyyy-MM-dd`. */
const asDates = (v: (Date | string)[] | null): string[] =>
  (v ?? []).map((d) =>
    typeof d === 'string' ? d : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
  );

/** A booking type: what a booking page offers (slots of one site, hosts, capacity, confirmation rules). */
@Entity({ schema: 'visitor', name: 'booking_type' })
export class BookingTypeRow {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') name: string;
  @Column('text') visitType: string;
  @Column('text') siteId: string;
  @Column('text', { array: true }) hostIds: string[];
  @Column('int') durationMinutes: number;
  @Column('int') bufferMinutes: number;
  @Column('int') capacity: number;
  @Column('boolean') requiresConfirmation: boolean;
  @Column('int') confirmationWindowHours: number;
  @Column('boolean') isPublic: boolean;
  @Column('jsonb') weeklyHours: WeeklyHours;
  @Column('date', { array: true, transformer: { from: asDates, to: (v: string[]) => v } })
  closedDates: string[];
  @Column('int') horizonDays: number;
  @Column('int') minNoticeMinutes: number;
  @Column('boolean') active: boolean;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Opening windows per weekday, local `HH:mm` times in the site's time zone (end after start). */
export type WeeklyHours = Partial<Record<Weekday, { start: string; end: string }[]>>;

/** The place-count row of one slot: `taken` never exceeds `capacity` (CHECK), and takers lock it. */
@Entity({ schema: 'visitor', name: 'booking_slot' })
export class BookingSlotRow {
  @PrimaryColumn('text') bookingTypeId: string;
  @PrimaryColumn('timestamptz') startsAt: Date;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('int') capacity: number;
  @Column('int') taken: number;
}
