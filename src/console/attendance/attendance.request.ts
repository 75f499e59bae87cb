import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBase64, IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
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
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date yyyy-mm-dd' })
  from: string;
  @ApiProperty({ example: '2026-03-31' })
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date yyyy-mm-dd' })
  to: string;
  @ApiPropertyOptional({ enum: ['daily', 'summary'], default: 'daily' })
  @IsOptional()
  @IsIn(['daily', 'summary'], { message: 'must be daily or summary' })
  kind?: 'daily' | 'summary';
}
