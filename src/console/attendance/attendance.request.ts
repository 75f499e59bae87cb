import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBase64, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { IsLocalDate } from '../../visitor/platform/field-formats';
import { ModeQuery } from '../console-mode';

export class StaffImportBody {
  @ApiProperty({ description: 'The CSV file, base64-encoded (its bytes are checked as UTF-8)' })
  @IsString()
  @IsBase64(undefined, { message: 'must be base64' })
  file_base64: string;
  @ApiPropertyOptional({ default: false, description: 'Check every row and report; change nothing' })
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

export class TimesheetQuery extends ModeQuery {
  @ApiProperty({ example: '2026-03-01' })
  @IsLocalDate()
  from: string;
  @ApiProperty({ example: '2026-03-31' })
  @IsLocalDate()
  to: string;
  @ApiPropertyOptional({ enum: ['daily', 'summary'], default: 'daily' })
  @IsOptional()
  @IsIn(['daily', 'summary'], { message: 'must be daily or summary' })
  kind?: 'daily' | 'summary';
}
