import { ApiPropertyOptional, ApiProperty, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { IsE164 } from '../../../common/validation/phone';
import { ListQuery } from '../../platform/pagination';

export class CreatePersonBody {
  @ApiProperty()
  @IsString()
  @Matches(/\S/, { message: 'must not be blank' })
  @MaxLength(200)
  name: string;
  @ApiProperty({ format: 'email' })
  @IsEmail({}, { message: 'must be an e-mail address' })
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
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(/^site_[0-9A-Za-z]+$/, { each: true, message: 'each must be a site_… id' })
  site_ids?: string[];
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() can_host?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  custom_fields?: Record<string, unknown>;
}

export class UpdatePersonBody extends PartialType(CreatePersonBody) {}

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
