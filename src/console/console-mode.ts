import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { ConsoleCaller } from '../visitor/accounts/console-caller';
import { ListQuery } from '../visitor/platform/pagination';
import type { Tenant } from '../visitor/platform/tenant';

/** `?mode=live|test` of console routes that work on one mode (default live). */
export class ModeQuery {
  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @IsOptional()
  @IsIn(['live', 'test'], { message: 'must be live or test' })
  mode?: 'live' | 'test';
}

export class ConsoleModeListQuery extends ListQuery {
  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @IsOptional()
  @IsIn(['live', 'test'], { message: 'must be live or test' })
  mode?: 'live' | 'test';
}

/** The signed-in person's organisation in the mode the query names. */
export const tenantOf = (a: ConsoleCaller, q: { mode?: 'live' | 'test' }): Tenant => ({
  organisationId: a.organisation_id,
  livemode: q.mode !== 'test',
});
