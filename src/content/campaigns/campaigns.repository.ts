import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';

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

const COLUMNS = `c.id, c.slug, c.title, c.description, c.category, c.status, c.goal_amount::text, c.raised_amount::text,
  c.image_url, c.country, c.target_country, c.goal_reached_at, c.deadline, c.created_at`;
const PUBLIC = `c.status IN ('active', 'won')`;

/** Campaigns as the public API sees them: only `active` and `won`, explicit public columns. */
@Injectable()
export class CampaignsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

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

  async bySlug(slug: string): Promise<CampaignRow | null> {
    const rows: CampaignRow[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM content.campaign c WHERE c.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }

  updates(campaignId: string): Promise<CampaignUpdateRow[]> {
    return this.ds.query(
      `SELECT id, title, content_html, media_urls, created_at FROM content.campaign_update
        WHERE campaign_id = $1 ORDER BY created_at DESC, id DESC`,
      [campaignId],
    );
  }
}
