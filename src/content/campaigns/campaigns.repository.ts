import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';

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
  goal_reached_at: Date | null;
  deadline: Date | null;
  created_at: Date;
}

export interface CampaignUpdateRow {
  id: string;
  title: string | null;
  content_html: string;
  media_urls: string[];
  created_at: Date;
}

/** A campaign's updates, one array per column (null without any). */
interface UpdateArrays {
  u_ids: string[] | null;
  u_titles: (string | null)[] | null;
  u_contents: string[] | null;
  u_media: string[][] | null;
  u_created: Date[] | null;
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
   * A public campaign and its updates, newest first: one prepared statement, the updates aggregated as one array
   * per column (`media_urls`, an array each, as JSON).
   */
  async detail(slug: string): Promise<{ row: CampaignRow; updates: CampaignUpdateRow[] } | null> {
    const [r] = await preparedQuery<CampaignRow & UpdateArrays>(
      this.ds,
      'public-campaign-detail',
      `SELECT ${COLUMNS}, u.u_ids, u.u_titles, u.u_contents, u.u_media, u.u_created
         FROM content.campaign c
         CROSS JOIN LATERAL (
           SELECT array_agg(x.id ORDER BY x.created_at DESC, x.id DESC) AS u_ids,
                  array_agg(x.title ORDER BY x.created_at DESC, x.id DESC) AS u_titles,
                  array_agg(x.content_html ORDER BY x.created_at DESC, x.id DESC) AS u_contents,
                  json_agg(x.media_urls ORDER BY x.created_at DESC, x.id DESC) AS u_media,
                  array_agg(x.created_at ORDER BY x.created_at DESC, x.id DESC) AS u_created
             FROM content.campaign_update x WHERE x.campaign_id = c.id) u
        WHERE c.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    if (!r) return null;
    const updates = (r.u_ids ?? []).map((id, i) => ({
      id,
      title: r.u_titles![i],
      content_html: r.u_contents![i],
      media_urls: r.u_media![i],
      created_at: r.u_created![i],
    }));
    return { row: r, updates };
  }
}
