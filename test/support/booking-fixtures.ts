import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BookingTypesService } from '../../src/visitor/booking-types/booking-types.service';
import type { Tenant } from '../../src/visitor/platform/tenant';
import { call } from './platform-fixtures';

/** 09:00–12:00, and that window on every day of the week. */
export const DAY = [{ start: '09:00', end: '12:00' }];
export const EVERY_DAY = { mon: DAY, tue: DAY, wed: DAY, thu: DAY, fri: DAY, sat: DAY, sun: DAY };

/** A booking type "Site tour" (meeting, one hour, one place, every day 09:00–12:00) at `site` with `host`. */
export const saveBookingType = (
  app: NestFastifyApplication,
  tenant: Tenant,
  at: { site: string; host: string },
  over: Record<string, unknown> = {},
) =>
  app.get(BookingTypesService).save(tenant, null, {
    name: 'Site tour',
    visit_type: 'meeting',
    site_id: at.site,
    host_ids: [at.host],
    duration_minutes: 60,
    capacity: 1,
    horizon_days: 366,
    weekly_hours: EVERY_DAY,
    ...over,
  });

/** POST /v1/bookings of `start` for attendee Abena (phone given), with `over` merged into the body. */
export const postBooking = (
  app: NestFastifyApplication,
  key: string,
  phone: string,
  typeId: string,
  start: string,
  over: Record<string, unknown> = {},
) =>
  call(app, 'POST', '/v1/bookings', {
    key,
    body: {
      booking_type_id: typeId,
      start,
      attendee: { name: 'Abena Attendee', phone, email: 'abena@example.test' },
      ...over,
    },
  });
