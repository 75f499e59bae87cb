import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a campaign; organizer, notes and donations are never selected. */
export interface CampaignRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  category: string;
  status: string;
  goal_amount: string;
  raised_amount: string;
  image_url: string | null;
  country: string | null;
  target_country: string | null;
  goal_reached_at: Timestamp | null;
  deadline: Timestamp | null;
  created_at: Timestamp;
}

export interface CampaignUpdateRow {
  id: string;
  title: string | null;
  content_html: string;
  media_urls: string[];
  /** A `Date` from a column; ISO 8601 text from JSON (see `detail`). */
  created_at: Date | string;
}

const COLUMNS = `c.id, c.slug, c.title, c.description, c.category, c.status, c.goal_amount::text, c.raised_amount::text,
  c.image_url, c.country, c.target_country, c.goal_reached_at, c.deadline, c.created_at`;
const PUBLIC = `c.status IN ('active', 'won')`;

/** Campaigns as the public API sees them: only `active` and `won`, explicit public columns. */
@Injectable()
export class CampaignsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { category?: string; country?: string },
    limit: number,
    offset: number,
  ): Promise<PageRows<CampaignRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.category?.toLowerCase(), (v) => `c.category = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `c.target_country = ${v}`)
      .page<CampaignRow>(
        this.ds,
        { select: COLUMNS, from: 'content.campaign c', orderBy: 'c.created_at DESC, c.id DESC' },
        limit,
        offset,
      );
  }

  /**
   * A public campaign and its updates, newest first: one prepared statement, the updates aggregated as one JSON
   * array of objects naming each public column. JSON, not an array per column: the driver parses JSON natively,
   * while a `text[]` (of whole HTML documents here) is parsed character by character in JavaScript, which cost
   * more than the rest of the request.
   */
  async detail(slug: string): Promise<{ row: CampaignRow; updates: CampaignUpdateRow[] } | null> {
    const [r] = await preparedQuery<CampaignRow & { updates: CampaignUpdateRow[] | null }>(
      this.ds,
      'public-campaign-detail',
      `SELECT ${COLUMNS}, u.updates
         FROM content.campaign c
         CROSS JOIN LATERAL (
           SELECT json_agg(json_build_object('id', x.id, 'title', x.title, 'content_html', x.content_html,
                                             'media_urls', x.media_urls, 'created_at', x.created_at)
                           ORDER BY x.created_at DESC, x.id DESC) AS updates
             FROM content.campaign_update x WHERE x.campaign_id = c.id) u
        WHERE c.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    if (!r) return null;
    return { row: r, updates: r.updates ?? [] };
  }
}
