import { ApiProperty } from '@nestjs/swagger';

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
