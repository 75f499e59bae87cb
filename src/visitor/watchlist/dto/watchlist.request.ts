import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { ListQuery } from '../../platform/pagination';
import { EMAIL_DESCRIPTION, IsEmailAddress, IsName } from '../../../common/validation/text';

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];

export class CreateWatchlistEntryBody {
  @ApiProperty({ example: 'Kwame Mensah' })
  @IsName()
  name: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['Kwame Mensa'],
    description: 'Other names the person uses',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsName(200, { each: true })
  aliases?: string[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '024 412 3456',
    description: "E.164, or a national number of the organisation's country (stored as E.164)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, format: 'email', description: EMAIL_DESCRIPTION })
  @IsOptional()
  @IsEmailAddress()
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  company?: string | null;

  @ApiProperty({ description: 'Why the person is on the watchlist' })
  @IsString()
  @Matches(/\S/, { message: 'must not be blank' })
  @MaxLength(2000)
  reason: string;

  @ApiProperty({ enum: SEVERITIES })
  @IsIn(SEVERITIES, { message: 'must be low, medium or high' })
  severity: Severity;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'After this the entry matches nothing',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;
}

export class WatchlistQuery extends ListQuery {}
