import { ApiProperty } from '@nestjs/swagger';
import type { ApprovalRow, ConnectionRow } from '../connected-apps.repository';

export class AppConnectionResponse {
  @ApiProperty({ description: 'The grant behind this connection' }) id: string;
  @ApiProperty({ description: 'The console account the app acts for' }) account_id: string;
  @ApiProperty() livemode: boolean;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at: string | null;
}

export class ConnectedAppResponse {
  @ApiProperty() client_id: string;
  @ApiProperty() name: string;
  @ApiProperty({
    enum: ['console', 'dcr', 'metadata_document'],
    description:
      'Registered in the console, by dynamic client registration, or a Client ID Metadata Document',
  })
  source: string;
  @ApiProperty({ enum: ['pending', 'approved', 'denied'] }) status: string;
  @ApiProperty({ description: 'The console account that first asked to connect it' }) requested_by: string;
  @ApiProperty({ format: 'date-time' }) requested_at: string;
  @ApiProperty({ type: String, nullable: true }) decided_by: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at: string | null;
  @ApiProperty({
    type: [String],
    description:
      'The scopes the app asked for (every request while it was pending; an approved app: the first grant)',
  })
  requested_scopes: string[];
  @ApiProperty({ type: [AppConnectionResponse], description: 'Connections not revoked' })
  connections: AppConnectionResponse[];
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toAppConnectionResponse(c: ConnectionRow): AppConnectionResponse {
  return {
    id: c.grant_id,
    account_id: c.account_id,
    livemode: c.livemode,
    scopes: c.scopes,
    created_at: new Date(c.created_at).toISOString(),
    last_used_at: iso(c.last_used_at),
  };
}

export function toConnectedAppResponse(a: ApprovalRow, connections: ConnectionRow[]): ConnectedAppResponse {
  return {
    client_id: a.client_id,
    name: a.client_name,
    source: a.client_source,
    status: a.status,
    requested_by: a.requested_by,
    requested_at: new Date(a.requested_at).toISOString(),
    decided_by: a.decided_by,
    decided_at: iso(a.decided_at),
    requested_scopes: a.requested_scopes,
    connections: connections.map(toAppConnectionResponse),
  };
}
