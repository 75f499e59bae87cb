import { ApiProperty } from '@nestjs/swagger';
import { progressPercent } from '../../common/percent';
import { detailResponse } from '../../common/detail-response';
import { countryName } from '../../common/countries';
import { iso } from '../../../common/iso';
import type { PetitionRow } from '../petitions.repository';

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

export function toPetitionResponse(r: PetitionRow): PetitionResponse {
  return {
    id: r.id,
    slug: r.slug,
    title: r.title,
    description: r.description,
    category: r.category,
    status: r.status,
    petition_target: r.petition_target,
    signatures_count: r.signatures_count,
    target_country: r.target_country,
    target_country_name: countryName(r.target_country),
    country: r.country,
    image_url: r.image_url,
    progress: {
      signatures_count: r.signatures_count,
      petition_target: r.petition_target,
      percent: progressPercent(r.signatures_count, r.petition_target),
    },
    created_at: iso(r.created_at),
  };
}

export function toPetitionDetailResponse(
  r: PetitionRow,
  signaturesLast7Days: number,
): PetitionDetailResponse {
  return detailResponse<PetitionResponse, PetitionDetailResponse>(toPetitionResponse(r), {
    momentum: { signatures_last_7_days: signaturesLast7Days },
  });
}
