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
    score: 0.79,
    explanation:
      "name similarity 0.79 to alias 'Kwame Mensa' (edit distance 1; case, accents and word order ignored)",
    severity: 'high',
    trigger: 'visit.created',
    created_at: now,
  }),
});
