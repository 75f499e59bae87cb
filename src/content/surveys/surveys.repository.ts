import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import { PublicQuery } from '../common/public-query';
import type { Timestamp } from '../../common/iso';

export interface SurveyRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  purpose: string;
  is_anonymous: boolean;
  guests_allowed: boolean;
  result_visibility: string;
  status: string;
  opens_at: Timestamp | null;
  closes_at: Timestamp | null;
  category_slug: string;
  published_at: Timestamp;
  created_at: Timestamp;
  /** Computed in SQL and withheld there: null unless the disclosure rule reveals results. */
  response_count: number | null;
}

/** An answer option, built as JSON in SQL; its count is null unless results are revealed. */
export interface SurveyOptionRow {
  option_key: string;
  label: string;
  response_count: number | null;
}

export interface SurveyQuestionRow {
  question_key: string;
  input_kind: string;
  label: string;
  help_text: string | null;
  required: boolean;
  options: SurveyOptionRow[];
}

/** The disclosure rule, in SQL: `public_live` always, `after_close` once closed, `after_respond` never. */
export const REVEALED = `(s.result_visibility = 'public_live' OR (s.result_visibility = 'after_close' AND s.status = 'closed'))`;
const COLUMNS = `s.id, s.slug, s.title, s.description, s.purpose, s.is_anonymous, s.guests_allowed, s.result_visibility,
  s.status, s.opens_at, s.closes_at, s.category_slug, s.published_at, s.created_at,
  CASE WHEN ${REVEALED} THEN (SELECT count(*)::int FROM content.survey_response r WHERE r.survey_id = s.id) END AS response_count`;
/** Only public, standalone surveys that are open or closed. */
const PUBLIC = `s.status IN ('open', 'closed') AND s.visibility = 'public' AND s.attached_to_type IS NULL`;

@Injectable()
export class SurveysRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: { category?: string; status?: string }, limit: number, offset: number) {
    return new PublicQuery(PUBLIC)
      .filter(f.category?.toLowerCase(), (v) => `s.category_slug = ${v}`)
      .filter(f.status, (v) => `s.status = ${v}`)
      .page<SurveyRow>(
        this.ds,
        { select: COLUMNS, from: 'content.survey s', orderBy: 's.published_at DESC, s.id DESC' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<SurveyRow | null> {
    const rows: SurveyRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.survey s WHERE s.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }

  /** Questions with their answer options (matrix rows and columns excluded), counts only when revealed. */
  questions(surveyId: string, revealed: boolean): Promise<SurveyQuestionRow[]> {
    return preparedText(
      this.ds,
      `SELECT q.question_key, q.input_kind, q.label, q.help_text, q.required,
              COALESCE((SELECT json_agg(json_build_object('option_key', o.option_key, 'label', o.label, 'response_count',
                          CASE WHEN $2 THEN (SELECT count(*) FROM content.survey_response_choice c WHERE c.option_id = o.id) END)
                        ORDER BY o.position, o.id)
                          FROM content.survey_option o WHERE o.question_id = q.id AND o.kind = 'option'), '[]'::json) AS options
         FROM content.survey_question q WHERE q.survey_id = $1 ORDER BY q.position, q.id`,
      [surveyId, revealed],
    );
  }
}
