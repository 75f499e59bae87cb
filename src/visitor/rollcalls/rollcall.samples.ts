import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { RollcallMarkResponse, RollcallResponse, toRollcallResponse } from './dto/rollcall.response';

/** rollcall.person_marked: the roll call with the mark just made. */
export type RollcallMarkedObject = RollcallResponse & { marked: RollcallMarkResponse };

declare module '../events/event-types' {
  interface EventObjects {
    'rollcall.started': RollcallResponse;
    'rollcall.person_marked': RollcallMarkedObject;
    'rollcall.closed': RollcallResponse;
  }
}

/** Sample `data.object` of `rollcall.*`: a roll call, active or closed, with the mark for rollcall.person_marked. */
export const sampleRollcall: SampleFactory<'rollcall'> = (type, tenant, now) => {
  const closed = type === 'rollcall.closed';
  const summary = toRollcallResponse({
    id: newId('rollcall'),
    organisation_id: tenant.organisationId,
    livemode: tenant.livemode,
    site_id: newId('site'),
    status: closed ? 'closed' : 'active',
    started_by: null,
    started_at: now,
    closed_by: null,
    closed_at: closed ? now : null,
    created_at: now,
    updated_at: now,
    total: 12,
    unaccounted: closed ? 0 : 11,
    safe: closed ? 11 : 1,
    missing: closed ? 1 : 0,
    needs_help: 0,
  });
  if (type !== 'rollcall.person_marked') return { ...summary };
  return {
    ...summary,
    marked: {
      subject_id: newId('visitor'),
      kind: 'visitor',
      status: 'safe',
      marked_by: null,
      marked_at: now.toISOString(),
    },
  };
};
