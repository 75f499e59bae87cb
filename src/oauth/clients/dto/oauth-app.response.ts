import { ApiProperty } from '@nestjs/swagger';
import type { ClientRow } from '../clients.repository';

export class OAuthAppResponse {
  @ApiProperty({ example: 'app_3kT9qLm4Rx7Vd2Wn8YsBc1' }) client_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['confidential', 'public'] }) type: string;
  @ApiProperty({ type: [String] }) redirect_uris: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class RegisteredOAuthAppResponse extends OAuthAppResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Confidential apps: the client secret. Shown only in this response; store it now.',
  })
  client_secret: string | null;
}

export function toOAuthAppResponse(c: ClientRow): OAuthAppResponse {
  return {
    client_id: c.client_id,
    name: c.name,
    type: c.confidential ? 'confidential' : 'public',
    redirect_uris: c.redirect_uris,
    created_at: new Date(c.created_at).toISOString(),
  };
}
