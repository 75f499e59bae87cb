import { ApiProperty } from '@nestjs/swagger';
import type { ConsoleCaller } from '../../../visitor/accounts/console-caller';

export class ConsoleAccountResponse {
  @ApiProperty({ example: 'acct_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() organisation_id: string;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['owner', 'admin', 'member', 'support'] }) role: string;
}

export const toAccountResponse = (a: ConsoleCaller): ConsoleAccountResponse => ({
  id: a.id,
  organisation_id: a.organisation_id,
  email: a.email,
  name: a.name,
  role: a.role,
});
