import { ApiProperty } from '@nestjs/swagger';

export class PetitionProgressResponse {
  @ApiProperty() signatures_count: number;
  @ApiProperty({ type: Number, nullable: true }) petition_target: number | null;
  @ApiProperty({ description: 'signatures / target × 100, two decimals; 0 without a target' })
  percent: number;
}

export class PetitionResponse {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() title: string;
  @ApiProperty() description: string;
  @ApiProperty() category: string;
  @ApiProperty({ enum: ['active'] }) status: string;
  @ApiProperty({ type: Number, nullable: true }) petition_target: number | null;
  @ApiProperty() signatures_count: number;
  @ApiProperty({ type: String, nullable: true }) target_country: string | null;
  @ApiProperty({ type: String, nullable: true }) target_country_name: string | null;
  @ApiProperty({ type: String, nullable: true }) country: string | null;
  @ApiProperty({ type: String, nullable: true }) image_url: string | null;
  @ApiProperty({ type: PetitionProgressResponse }) progress: PetitionProgressResponse;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class PetitionMomentumResponse {
  @ApiProperty() signatures_last_7_days: number;
}

export class PetitionDetailResponse extends PetitionResponse {
  @ApiProperty({ type: PetitionMomentumResponse }) momentum: PetitionMomentumResponse;
}
