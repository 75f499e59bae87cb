import type { SurveyRow } from '../surveys.repository';
import { toSurveyDetailResponse, toSurveyResponse } from './survey.response';

const row = (over: Partial<SurveyRow> = {}): SurveyRow => ({
  id: 'srv_1',
  slug: 'transport-poll',
  title: 'Transport',
  description: 'How do you travel?',
  purpose: 'poll',
  is_anonymous: true,
  guests_allowed: true,
  result_visibility: 'public_live',
  status: 'open',
  opens_at: null,
  closes_at: null,
  category_slug: 'civic',
  published_at: new Date(Date.UTC(2026, 3, 1)),
  created_at: new Date(Date.UTC(2026, 2, 30)),
  response_count: 42,
  ...over,
});

describe('survey response', () => {
  it.each([
    ['public_live', 'open', true],
    ['public_live', 'closed', true],
    ['after_close', 'open', false],
    ['after_close', 'closed', true],
    ['after_respond', 'closed', false],
  ])(
    '%s while %s: revealed %s, the count only then (null, never 0, otherwise)',
    (visibility, status, shown) => {
      const s = toSurveyResponse(row({ result_visibility: visibility, status }));
      expect([s.results_revealed, s.response_count]).toEqual([shown, shown ? 42 : null]);
    },
  );

  it('links to its page and lists its questions after the survey fields', () => {
    const question = {
      question_key: 'q1',
      input_kind: 'single_choice',
      label: 'Mode',
      help_text: null,
      required: true,
      options: [{ option_key: 'bus', label: 'Bus', response_count: null }],
    };
    const d = toSurveyDetailResponse(row(), [question]);
    expect(d.url).toBe('/surveys/transport-poll');
    expect(Object.keys(d)).toEqual([...Object.keys(toSurveyResponse(row())), 'questions']);
    expect(d.questions).toEqual([question]);
  });
});
