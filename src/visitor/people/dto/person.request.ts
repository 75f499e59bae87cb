import { ApiPropertyOptional, ApiProperty, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsE164 } from '../../../common/validation/phone';
import { ListQuery } from '../../platform/pagination';
import { OptionalNotNull } from '../../platform/not-null';
import { EMAIL_DESCRIPTION, IsEmailAddress, IsName } from '../../../common/validation/text';

export class CreatePersonBody {
  @ApiProperty()
  @IsName()
  name: string;
  @ApiProperty({ format: 'email', description: EMAIL_DESCRIPTION })
  @IsEmailAddress()
  @MaxLength(320)
  email: string;
  @ApiPropertyOptional({ type: String, nullable: true, example: '+233244123456' })
  @IsOptional()
  @IsE164()
  phone?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  department?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  job_title?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  employee_number?: string | null;
  @ApiPropertyOptional({ type: [String] })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^site_[0-9A-Za-z]+$/, { each: true, message: 'each must be a site_… id' })
  site_ids?: string[];
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() can_host?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @OptionalNotNull()
  @IsObject()
  custom_fields?: Record<string, unknown>;
}

const PersonChanges = PartialType(CreatePersonBody, { skipNullProperties: false });
// name and email are required on create; site_ids, can_host and custom_fields are OptionalNotNull there already.
// On the mapped class itself: class-validator lets a subclass's own rules of a kind hide the inherited ones.
for (const field of ['name', 'email'] as const) OptionalNotNull()(PersonChanges.prototype, field);

/**
 * Every field may be left out; `null` clears the nullable ones (phone, department, job title, employee number) and
 * is `validation_failed` ("must not be null") for the others, which a person always has.
 */
export class UpdatePersonBody extends PersonChanges {}

export class PeopleQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Words of the name or e-mail (prefix match)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'Only active people who can (or cannot) host' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'must be true or false' })
  can_host?: boolean;

  @ApiPropertyOptional({ description: 'Exact e-mail address (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  email?: string;
}
