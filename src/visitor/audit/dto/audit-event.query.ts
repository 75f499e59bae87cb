import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ListQuery } from '../../platform/pagination';

export class AuditEventQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only this action, e.g. `api_key.created`' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]+\.[a-z_]+$/, { message: 'must be an action such as api_key.created' })
  action?: string;
}
