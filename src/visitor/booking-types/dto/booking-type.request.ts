import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsLocalDate, IsLocalTime } from '../../platform/field-formats';
import { ListQuery } from '../../platform/pagination';
import { IsPrefixedId, EachIsPrefixedId } from '../../../common/validation/prefixed-id';
import { IsName } from '../../../common/validation/text';

export class OpeningWindowInput {
  @ApiProperty({ example: '09:00' }) @IsString() @IsLocalTime() start: string;
  @ApiProperty({ example: '17:00' }) @IsString() @IsLocalTime(true) end: string;
}

export class WeeklyHoursInput {
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  mon?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  tue?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  wed?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  thu?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  fri?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  sat?: OpeningWindowInput[];
  @ApiPropertyOptional({ type: [OpeningWindowInput] })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => OpeningWindowInput)
  sun?: OpeningWindowInput[];
}

/** Console / CLI: create or replace a booking type (every field but `id`). */
export class SaveBookingTypeBody {
  @ApiProperty({ example: 'Site tour' }) @IsName() name: string;
  @ApiProperty({ example: 'meeting' }) @IsString() @MaxLength(40) visit_type: string;
  @ApiProperty()
  @IsString()
  @IsPrefixedId('site')
  site_id: string;
  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @EachIsPrefixedId('person')
  host_ids: string[];
  @ApiProperty({ example: 30 }) @IsInt() @Min(5) @Max(1440) duration_minutes: number;
  @ApiPropertyOptional({ default: 0 }) @IsOptional() @IsInt() @Min(0) @Max(1440) buffer_minutes?: number;
  @ApiPropertyOptional({ default: 1 }) @IsOptional() @IsInt() @Min(1) @Max(10000) capacity?: number;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() requires_confirmation?: boolean;
  @ApiPropertyOptional({ default: 24 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(720)
  confirmation_window_hours?: number;
  @ApiProperty({ type: WeeklyHoursInput })
  @IsObject()
  @ValidateNested()
  @Type(() => WeeklyHoursInput)
  weekly_hours: WeeklyHoursInput;
  @ApiPropertyOptional({ type: [String], example: ['2026-12-25'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(366)
  @IsLocalDate(true)
  closed_dates?: string[];
  @ApiPropertyOptional({ default: 60 }) @IsOptional() @IsInt() @Min(1) @Max(366) horizon_days?: number;
  @ApiPropertyOptional({ default: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(525600)
  min_notice_minutes?: number;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() public?: boolean;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() active?: boolean;
}

export class AvailabilityQuery {
  @ApiPropertyOptional({
    example: '2026-03-28',
    description: 'First local date (site time zone); default today at the site',
  })
  @IsOptional()
  @IsLocalDate()
  from?: string;
  @ApiPropertyOptional({
    example: '2026-04-03',
    description: 'Last local date, inclusive, at most 31 days after from; default from + 6 days',
  })
  @IsOptional()
  @IsLocalDate()
  to?: string;
}

export class BookingTypesQuery extends ListQuery {}
