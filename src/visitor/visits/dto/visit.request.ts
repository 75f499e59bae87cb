import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsE164 } from '../../../common/validation/phone';
import { IsTimestamp } from '../../../common/validation/timestamp';
import { OptionalNotNull } from '../../platform/not-null';
import { IsPrefixedId } from '../../../common/validation/prefixed-id';
import { ListQuery } from '../../platform/pagination';
import { VISIT_STATUSES } from '../visit-state-machine';
import { EMAIL_DESCRIPTION, IsEmailAddress, IsName } from '../../../common/validation/text';

export const PASS_CHANNELS = ['whatsapp', 'sms', 'email'] as const;
export const DEFAULT_PASS_CHANNELS = ['whatsapp', 'sms', 'email'];

/** Optional ordered list of pass channels (OpenAPI + validation). */
const IsPassChannels = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: [String], enum: PASS_CHANNELS, default: DEFAULT_PASS_CHANNELS, description }),
    IsOptional(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(3),
    IsIn(PASS_CHANNELS, { each: true, message: 'each must be whatsapp, sms or email' }),
  );

export class VisitorInput {
  @ApiProperty({ example: 'Kofi Boateng' }) @IsName() name: string;
  @IsE164() phone: string;
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
}

export class CreateVisitBody {
  @ApiProperty({ example: 'site_8Lq2Xv7Rk4Tn1Wc9Pm3Zb6' }) @IsString() @IsPrefixedId('site') site_id: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'A gate of the site' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('gate')
  gate_id?: string | null;
  @ApiProperty({ example: 'person_2Fj6Ry9Kp3Wd8Lt1Xn5Qa7', description: 'An active person who can host' })
  @IsString()
  @IsPrefixedId('person')
  host_id: string;
  @ApiProperty({
    example: 'meeting',
    description: 'Visit type key (on; open for pre-registration with a publishable key)',
  })
  @IsString()
  @MaxLength(40)
  type: string;
  @ApiProperty({ type: VisitorInput })
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => VisitorInput)
  visitor: VisitorInput;
  @ApiPropertyOptional({ default: '' }) @IsOptional() @IsString() @MaxLength(500) purpose?: string;
  @ApiPropertyOptional({ format: 'date-time' }) @IsOptional() @IsTimestamp() expected_at?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'After expected_at' })
  @IsOptional()
  @IsTimestamp()
  expected_until?: string;
  @IsPassChannels('Channels to try for the pass, in order; the first that works is used')
  pass_channels?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  custom_fields?: Record<string, unknown>;
}

export class UpdateVisitBody {
  @ApiPropertyOptional({ type: String, nullable: true, format: 'date-time' })
  @IsOptional()
  @IsTimestamp()
  expected_at?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, format: 'date-time' })
  @IsOptional()
  @IsTimestamp()
  expected_until?: string | null;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @IsPrefixedId('site') site_id?: string;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @IsPrefixedId('gate')
  gate_id?: string | null;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @IsPrefixedId('person') host_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) purpose?: string;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @MaxLength(40) type?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Replaces all answers' })
  @OptionalNotNull()
  @IsObject()
  custom_fields?: Record<string, unknown>;
}

export class CancelVisitBody {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class DecideVisitBody {
  @ApiPropertyOptional({ description: 'The person (person_…) who decided' })
  @IsOptional()
  @IsString()
  @IsPrefixedId('person')
  decided_by?: string;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class VisitsQuery extends ListQuery {
  @ApiPropertyOptional({ enum: VISIT_STATUSES })
  @IsOptional()
  @IsIn(VISIT_STATUSES, { message: `must be one of ${VISIT_STATUSES.join(', ')}` })
  status?: (typeof VISIT_STATUSES)[number];
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('site') site_id?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @IsPrefixedId('person') host_id?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'expected_at at or after' })
  @IsOptional()
  @IsTimestamp()
  expected_from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'expected_at before' })
  @IsOptional()
  @IsTimestamp()
  expected_to?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Changed at or after (for sync)' })
  @IsOptional()
  @IsTimestamp()
  updated_since?: string;
}

export class CheckInBody {
  @ApiPropertyOptional({
    description: "The visitor's pass token, when the kiosk scanned one; it must be the visit's current pass",
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  pass?: string;
}

export class ResendPassBody {
  @IsPassChannels("Channels for this and later passes; default: the visit's")
  pass_channels?: string[];
}
