import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../../common/validation/timestamp';

export class CreateApiKeyBody {
  @ApiProperty() @IsString() @MaxLength(100) name: string;
  @ApiProperty({ enum: ['secret', 'publishable'] }) @IsIn(['secret', 'publishable']) kind: string;
  @ApiProperty({ enum: ['live', 'test'] }) @IsIn(['live', 'test']) mode: string;
  @ApiProperty({ type: [String] }) @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) scopes: string[];
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the key stops working (in the future); omit for a key that works until revoked',
  })
  @IsOptional()
  @IsTimestamp()
  expires_at?: string | null;
}
