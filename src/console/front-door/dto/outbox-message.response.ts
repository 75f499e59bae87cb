import { ApiProperty } from '@nestjs/swagger';
import type { MessageRow } from '../../../visitor/messages/messages.service';

export class OutboxMessageResponse {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['email', 'sms', 'whatsapp'] }) channel: string;
  @ApiProperty() recipient: string;
  @ApiProperty({ type: String, nullable: true }) subject: string | null;
  @ApiProperty() body: string;
  @ApiProperty({ type: String, nullable: true, description: 'The visit or endpoint it is about' })
  related_id: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const toOutbox = (m: MessageRow): OutboxMessageResponse => ({
  id: m.id,
  channel: m.channel,
  recipient: m.recipient,
  subject: m.subject,
  body: m.body,
  related_id: m.relatedId,
  created_at: m.createdAt.toISOString(),
});
