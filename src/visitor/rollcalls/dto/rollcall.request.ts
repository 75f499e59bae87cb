import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsPrefixedId } from '../../../common/validation/prefixed-id';
import { ListQuery } from '../../platform/pagination';

export const ROLLCALL_STATUSES = ['active', 'closed'] as const;
export const MARKS = ['safe', 'missing', 'needs_help'] as const;
export type Mark = (typeof MARKS)[number];

export class StartRollcallBody {
  @ApiProperty({ example: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }) @IsString() @IsPrefixedId('site') site_id: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'The person starting it (`person_…`)' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  started_by?: string | null;
}

export class MarkRollcallBody {
  @ApiProperty({
    example: 'visitor_3kT9qLm4Rx7Vd2Wn8YsBc1',
    description: 'Who is marked: a `visitor_…` or `person_…` id from the roll call’s people',
  })
  @IsString()
  @IsPrefixedId('visitor', 'person')
  subject_id: string;

  @ApiProperty({ enum: MARKS })
  @IsIn(MARKS, { message: 'must be safe, missing or needs_help' })
  status: Mark;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'The person marking (`person_…`)' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  marked_by?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Sprained ankle at the east stairs' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string | null;
}

export class CloseRollcallBody {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'The person closing it (`person_…`)' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  closed_by?: string | null;
}

export class RollcallsQuery extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('site') site_id?: string;
  @ApiPropertyOptional({ enum: ROLLCALL_STATUSES })
  @IsOptional()
  @IsIn(ROLLCALL_STATUSES, { message: 'must be active or closed' })
  status?: 'active' | 'closed';
}
