import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

export class RedeliverBody {
  @ApiPropertyOptional({
    description: 'Only this endpoint (`whep_…`); default: every endpoint subscribed now',
  })
  @IsOptional()
  @IsString()
  @Matches(/^whep_[0-9A-Za-z]+$/, { message: 'must be a whep_… id' })
  endpoint_id?: string;
}
