import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';

/** visitor.erased: which visitor was erased, when, and the visits that were theirs. */
export interface VisitorErasedObject {
  id: string;
  object: 'visitor';
  erased_at: string;
  visit_ids: string[];
}

declare module '../events/event-types' {
  interface EventObjects {
    'visitor.erased': VisitorErasedObject;
  }
}

/** Sample `data.object` of visitor.erased. */
export const sampleErasure: SampleFactory<'visitor'> = (_type, _tenant, now) => ({
  id: newId('visitor'),
  object: 'visitor',
  erased_at: now.toISOString(),
  visit_ids: [newId('visit')],
});
