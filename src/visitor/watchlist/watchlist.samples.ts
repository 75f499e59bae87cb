import { newId } from '../../common/ids';
import type { SampleFactory } from '../events/event-samples';
import { toMatchResponse, WatchlistMatchResponse } from './dto/watchlist.response';

declare module '../events/event-types' {
  interface EventObjects {
    'watchlist.matched': WatchlistMatchResponse;
  }
}

/** Sample `data.object` of watchlist.matched: a match (`wlm_`) with its explanation. */
export const sampleMatch: SampleFactory<'watchlist'> = (_type, _tenant, now) => ({
  ...toMatchResponse({
    id: newId('wlm'),
    entry_id: newId('watch'),
    visit_id: newId('visit'),
    visitor_id: newId('visitor'),
    field: 'name',
    score: 0.85,
    explanation: "name matches alias 'Kwame Mensah': Kwame initial; Mensah exact",
    severity: 'high',
    trigger: 'visit.created',
    created_at: now,
  }),
});
