import type { PetitionRow } from '../petitions.repository';
import { toPetitionDetailResponse, toPetitionResponse } from './petition.response';

const row = (over: Partial<PetitionRow> = {}): PetitionRow => ({
  id: 'pet_1',
  slug: 'open-data',
  title: 'Open data',
  description: 'Publish budgets',
  category: 'governance',
  status: 'active',
  petition_target: 3000,
  signatures_count: 1001,
  image_url: null,
  country: null,
  target_country: 'NG',
  created_at: new Date(Date.UTC(2026, 0, 1)),
  ...over,
});

describe('petition response', () => {
  it('percent is signatures over target, two decimals', () => {
    expect(toPetitionResponse(row()).progress).toEqual({
      signatures_count: 1001,
      petition_target: 3000,
      percent: 33.37,
    });
  });

  it('without a target the percent is 0 and the target null', () => {
    expect(toPetitionResponse(row({ petition_target: null })).progress).toEqual({
      signatures_count: 1001,
      petition_target: null,
      percent: 0,
    });
  });

  it('a detail is the list item with its momentum after it', () => {
    const d = toPetitionDetailResponse(row(), 12);
    expect(Object.keys(d)).toEqual([...Object.keys(toPetitionResponse(row())), 'momentum']);
    expect(d.momentum).toEqual({ signatures_last_7_days: 12 });
  });
});
