import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FormSchema } from '../../../visitor/forms/custom-fields.validator';

export { ModeQuery } from '../../console-mode';

export class SaveVisitTypeBody {
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(100) name?: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() pre_registration?: boolean;
}

export class PublishFormBody {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema (2020-12) with x-svc annotations',
  })
  @IsObject()
  schema: FormSchema;
}
