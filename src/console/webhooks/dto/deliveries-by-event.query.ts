import { IsString, Matches } from 'class-validator';

export class DeliveriesByEventQuery {
  @IsString()
  @Matches(/^evt_[0-9A-Za-z]+$/, { message: 'must be an evt_… id' })
  event_id: string;
}
