import { ApiProperty } from '@nestjs/swagger';
import { PLANS } from '../../platform/plans';
import type { OrganisationRow, SiteRow } from '../organisations.repository';

export class MoneyResponse {
  @ApiProperty({ description: 'Amount in minor units', example: 125000 }) amount: number;
  @ApiProperty({ example: 'GHS' }) currency: string;
}

export class OrganisationResponse {
  @ApiProperty({ example: 'org_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() slug: string;
  @ApiProperty({ enum: PLANS }) plan: string;
  @ApiProperty({ description: 'ISO 3166-1 alpha-2 country code', example: 'GH' }) country: string;
  @ApiProperty({ description: 'IANA time zone', example: 'Africa/Accra' }) time_zone: string;
  @ApiProperty({ type: MoneyResponse }) wallet_balance: MoneyResponse;
  @ApiProperty({ description: 'The mode of the credential used' }) livemode: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toOrganisationResponse(o: OrganisationRow, livemode: boolean): OrganisationResponse {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    plan: o.plan,
    country: o.country,
    time_zone: o.time_zone,
    wallet_balance: { amount: Number(o.wallet_amount), currency: o.wallet_currency },
    livemode,
    created_at: new Date(o.created_at).toISOString(),
  };
}

export class GateResponse {
  @ApiProperty({ example: 'gate_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
}

export class SiteResponse {
  @ApiProperty({ example: 'site_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ description: 'IANA time zone', example: 'Africa/Accra' }) time_zone: string;
  @ApiProperty({ description: 'Check-in waits for the host to approve' }) requires_host_approval: boolean;
  @ApiProperty({ type: [GateResponse] }) gates: GateResponse[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toSiteResponse(s: SiteRow): SiteResponse {
  return {
    id: s.id,
    name: s.name,
    time_zone: s.time_zone,
    requires_host_approval: s.requires_host_approval,
    gates: s.gates,
    created_at: new Date(s.created_at).toISOString(),
  };
}
