import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { BookingStatus } from './booking-state-machine';

/** A booking of one slot of a booking type, with its attendee (personal data: erased with the visitor). */
@Entity({ schema: 'visitor', name: 'booking' })
export class BookingEntity {
  @PrimaryColumn('text') id: string;
  @Column('text') organisationId: string;
  @Column('boolean') livemode: boolean;
  @Column('text') bookingTypeId: string;
  @Column('text') status: BookingStatus;
  @Column('text') source: string;
  @Column('timestamptz') startsAt: Date;
  @Column('timestamptz') endsAt: Date;
  @Column('text') siteId: string;
  @Column('text') hostId: string;
  @Column('text', { nullable: true }) attendeeName: string | null;
  @Column('text', { nullable: true }) attendeePhone: string | null;
  @Column('text', { nullable: true }) attendeeEmail: string | null;
  @Column('text', { nullable: true }) attendeeCompany: string | null;
  @Column('jsonb') customFields: Record<string, unknown>;
  @Column('text', { nullable: true }) visitId: string | null;
  @Column('timestamptz', { nullable: true }) confirmBy: Date | null;
  @Column('timestamptz', { nullable: true }) confirmedAt: Date | null;
  @Column('timestamptz', { nullable: true }) declinedAt: Date | null;
  @Column('text', { nullable: true }) declineReason: string | null;
  @Column('boolean') shareReasonWithAttendee: boolean;
  @Column('timestamptz', { nullable: true }) expiredAt: Date | null;
  @Column('timestamptz', { nullable: true }) cancelledAt: Date | null;
  @Column('text', { nullable: true }) cancelReason: string | null;
  @Column('timestamptz', { nullable: true }) rescheduledAt: Date | null;
  @Column('timestamptz') createdAt: Date;
  @Column('timestamptz') updatedAt: Date;
}
