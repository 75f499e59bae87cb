import type { CampaignRow } from '../campaigns.repository';
import { toCampaignDetailResponse, toCampaignResponse } from './campaign.response';

const row = (over: Partial<CampaignRow> = {}): CampaignRow => ({
  id: 'camp_1',
  slug: 'clean-water',
  title: 'Clean water',
  description: 'Wells',
  category: 'health',
  status: 'active',
  goal_amount: '2000.00',
  raised_amount: '1234.56',
  image_url: null,
  country: 'Ghana',
  target_country: 'GH',
  goal_reached_at: null,
  deadline: new Date(Date.UTC(2026, 11, 31)),
  created_at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
  ...over,
});

describe('campaign response', () => {
  it('turns amounts selected as text into numbers and derives the progress and country name', () => {
    const c = toCampaignResponse(row());
    expect(c).toMatchObject({
      goal_amount: 2000,
      raised_amount: 1234.56,
      target_country_name: 'Ghana',
      progress: { raised_amount: 1234.56, goal_amount: 2000, percent: 61.73 },
      goal_reached_at: null,
      deadline: '2026-12-31T00:00:00.000Z',
      created_at: '2026-01-02T03:04:05.000Z',
    });
  });

  it('gives 0 % for a zero goal and no country name without a target country', () => {
    const c = toCampaignResponse(row({ goal_amount: '0', target_country: null }));
    expect([c.progress.percent, c.target_country_name]).toEqual([0, null]);
  });

  it('a detail is the list item with its updates after it, sanitized', () => {
    const d = toCampaignDetailResponse(row(), [
      {
        id: 'upd_1',
        title: null,
        content_html: '<p>Dug</p><script>alert(1)</script>',
        media_urls: [],
        created_at: new Date(Date.UTC(2026, 1, 1)),
      },
    ]);
    expect(Object.keys(d)).toEqual([...Object.keys(toCampaignResponse(row())), 'updates']);
    expect(d.updates).toEqual([
      {
        id: 'upd_1',
        title: null,
        content: '<p>Dug</p>',
        media_urls: [],
        created_at: '2026-02-01T00:00:00.000Z',
      },
    ]);
  });
});
