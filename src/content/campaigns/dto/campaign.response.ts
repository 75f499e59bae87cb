import { ApiProperty } from '@nestjs/swagger';
import { progressPercent } from '../../common/percent';
import { detailResponse } from '../../common/detail-response';
import { countryName } from '../../common/countries';
import { iso, isoOrNull } from '../../../common/iso';
import { sanitize } from '../../common/sanitize';
import type { CampaignRow, CampaignUpdateRow } from '../campaigns.repository';

export class CampaignProgressResponse {
  @ApiProperty() raised_amount: number;
  @ApiProperty() goal_amount: number;
  @ApiProperty({ description: 'raised / goal × 100, two decimals; may exceed 100' }) percent: number;
}

export class CampaignResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty() category: string;
  @ApiProperty({ enum: ['active', 'won'] }) status: string;
  @ApiProperty({ description: 'In major units of the campaign currency' }) goal_amount: number;
  @ApiProperty() raised_amount: number;
  @ApiProperty({ type: String, nullable: true }) image_url: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Country name' }) country: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Country code' }) target_country: string | null;
  @ApiProperty({ type: String, nullable: true }) target_country_name: string | null;
  @ApiProperty({ type: CampaignProgressResponse }) progress: CampaignProgressResponse;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) goal_reached_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deadline: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class CampaignUpdateResponse {
  @ApiProperty() id: string;
  @ApiProperty({ type: String, nullable: true }) title: string | null;
  @ApiProperty({ description: 'Sanitized HTML' }) content: string;
  @ApiProperty({ type: [String] }) media_urls: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class CampaignDetailResponse extends CampaignResponse {
  @ApiProperty({ type: [CampaignUpdateResponse], description: 'Newest first' })
  updates: CampaignUpdateResponse[];
}

export function toCampaignResponse(r: CampaignRow): CampaignResponse {
  const goal = Number(r.goal_amount);
  const raised = Number(r.raised_amount);
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    category: r.category,
    status: r.status,
    goal_amount: goal,
    raised_amount: raised,
    image_url: r.image_url,
    country: r.country,
    target_country: r.target_country,
    target_country_name: countryName(r.target_country),
    progress: { raised_amount: raised, goal_amount: goal, percent: progressPercent(raised, goal) },
    goal_reached_at: isoOrNull(r.goal_reached_at),
    deadline: isoOrNull(r.deadline),
    created_at: iso(r.created_at),
  };
}

export function toCampaignUpdateResponse(u: CampaignUpdateRow): CampaignUpdateResponse {
  return {
    id: u.id,
    title: u.title,
    content: sanitize(u.content_html),
    media_urls: u.media_urls,
    created_at: iso(u.created_at),
  };
}

export function toCampaignDetailResponse(
  r: CampaignRow,
  updates: CampaignUpdateRow[],
): CampaignDetailResponse {
  return detailResponse<CampaignResponse, CampaignDetailResponse>(toCampaignResponse(r), {
    updates: updates.map(toCampaignUpdateResponse),
  });
}
