import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { IsLocalDate, IsLocalTime } from '../../platform/field-formats';
import { ListQuery } from '../../platform/pagination';
import { EVIDENCE_KINDS } from '../attendance.repository';
import { IsPrefixedId, EachIsPrefixedId } from '../../../common/validation/prefixed-id';
import { IsName } from '../../../common/validation/text';

export const CLOCK_METHODS = ['card', 'pin', 'face', 'fingerprint', 'qr', 'manual'] as const;

export class EvidenceInput {
  @ApiProperty({ enum: EVIDENCE_KINDS, description: 'Each kind needs the employee’s consent' })
  @IsIn(EVIDENCE_KINDS, { message: `must be one of ${EVIDENCE_KINDS.join(', ')}` })
  kind: string;
  @ApiProperty({
    description: 'Where the terminal keeps the evidence (a file id or the terminal’s own reference)',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reference: string;
}

export class RecordClockEventBody {
  @ApiProperty({ example: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7' })
  @IsString()
  @IsPrefixedId('person')
  person_id: string;
  @ApiProperty({ example: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }) @IsString() @IsPrefixedId('site') site_id: string;
  @ApiProperty({ enum: ['in', 'out'] }) @IsIn(['in', 'out'], { message: 'must be in or out' }) direction:
    'in' | 'out';
  @ApiProperty({
    format: 'date-time',
    description:
      "When the terminal recorded it: at most 31 days ago and at most 5 minutes ahead of the server's clock",
  })
  @IsTimestamp()
  occurred_at: string;
  @ApiProperty({ enum: CLOCK_METHODS, description: 'face needs the employee’s face consent' })
  @IsIn(CLOCK_METHODS, { message: `must be one of ${CLOCK_METHODS.join(', ')}` })
  method: string;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  device_id?: string | null;
  @ApiPropertyOptional({ type: EvidenceInput, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => EvidenceInput)
  evidence?: EvidenceInput | null;
  @ApiPropertyOptional({ default: false, description: 'Recorded earlier by a terminal that was offline' })
  @IsOptional()
  @IsBoolean()
  offline?: boolean;
}

export class ClockEventsQuery extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('person') person_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('site') site_id?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'occurred_at at or after' })
  @IsOptional()
  @IsTimestamp()
  from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'occurred_at before' })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

export class SummaryQuery {
  @ApiProperty({ example: '2026-03-01', description: 'First local date' }) @IsLocalDate() from: string;
  @ApiProperty({ example: '2026-03-31', description: 'Last local date (inclusive), at most 31 dates in all' })
  @IsLocalDate()
  to: string;
}

export class EvidenceConsentBody {
  @ApiProperty({ enum: EVIDENCE_KINDS })
  @IsIn(EVIDENCE_KINDS, { message: `must be one of ${EVIDENCE_KINDS.join(', ')}` })
  kind: string;
  @ApiProperty({ enum: ['given', 'withdrawn'] })
  @IsIn(['given', 'withdrawn'], { message: 'must be given or withdrawn' })
  consent: 'given' | 'withdrawn';
}

/** Console / CLI: a shift pattern (and, optionally, who works it). */
export class SaveShiftBody {
  @ApiProperty({ example: 'Day shift' }) @IsName() name: string;
  @ApiProperty() @IsString() @IsPrefixedId('site') site_id: string;
  @ApiProperty({ example: '09:00' }) @IsString() @IsLocalTime() start_time: string;
  @ApiProperty({ example: '17:00', description: 'After start_time (shifts end on the day they start)' })
  @IsString()
  @IsLocalTime()
  end_time: string;
  @ApiPropertyOptional({ default: 0 }) @IsOptional() @IsInt() @Min(0) @Max(240) grace_minutes?: number;
  @ApiProperty({ type: [Number], example: [1, 2, 3, 4, 5], description: 'ISO days of the week, 1 = Monday' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(7, { each: true })
  days_of_week: number[];
  @ApiPropertyOptional({ type: [String], description: 'People (person_…) who work this shift from now on' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10000)
  @EachIsPrefixedId('person')
  person_ids?: string[];
}

export class LeaveBody {
  @ApiProperty() @IsString() @IsPrefixedId('person') person_id: string;
  @ApiProperty({ example: 'annual' }) @IsString() @MinLength(1) @MaxLength(100) leave_type: string;
  @ApiProperty({ example: '2026-03-09' }) @IsLocalDate() first_day: string;
  @ApiProperty({ example: '2026-03-13' }) @IsLocalDate() last_day: string;
}

export class HolidayBody {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'A site; null: every site' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('site')
  site_id?: string | null;
  @ApiProperty({ example: '2026-03-06' }) @IsLocalDate() day: string;
  @ApiProperty({ example: 'Independence Day' }) @IsName() name: string;
}

export class ShiftsQuery extends ListQuery {}
