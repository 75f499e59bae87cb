import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { ClockEventResponse, toClockEventResponse } from './dto/attendance.response';

declare module '../events/event-types' {
  interface EventObjects {
    'attendance.clocked_in': ClockEventResponse;
    'attendance.clocked_out': ClockEventResponse;
    'attendance.late': ClockEventResponse;
  }
}

/** Sample `data.object` of `attendance.*`: a clock event (late by 12 minutes for attendance.late). */
export const sampleClockEvent: SampleFactory<'attendance'> = (type, tenant, now) => ({
  ...toClockEventResponse({
    id: newId('attendance'),
    organisationId: tenant.organisationId,
    livemode: tenant.livemode,
    personId: newId('person'),
    siteId: newId('site'),
    direction: type === 'attendance.clocked_out' ? 'out' : 'in',
    occurredAt: now,
    localDate: now.toISOString().slice(0, 10),
    method: 'card',
    deviceId: 'Front desk terminal',
    evidenceKind: null,
    evidenceRef: null,
    offline: false,
    lateMinutes: type === 'attendance.late' ? 12 : type === 'attendance.clocked_in' ? 0 : null,
    shiftId: type === 'attendance.clocked_out' ? null : newId('shift'),
    createdAt: now,
  }),
});
