import { ApiProperty } from '@nestjs/swagger';
import type { PersonRow } from '../people.repository';

export class PersonResponse {
  @ApiProperty({ example: 'person_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ type: String, nullable: true, example: '+233244123456' }) phone: string | null;
  @ApiProperty({ type: String, nullable: true }) department: string | null;
  @ApiProperty({ type: String, nullable: true }) job_title: string | null;
  @ApiProperty({ type: String, nullable: true }) employee_number: string | null;
  @ApiProperty({ type: [String], description: 'Sites the person works at (`site_…`)' }) site_ids: string[];
  @ApiProperty({ description: 'May be chosen as the host of a visit' }) can_host: boolean;
  @ApiProperty({ description: 'false once deactivated' }) active: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Answers to the person form (protected answers omitted for integrations)',
  })
  custom_fields: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function toPersonResponse(
  p: PersonRow,
  customFields: Record<string, unknown> = p.customFields,
): PersonResponse {
  return {
    id: p.id,
    name: p.name,
    email: p.email,
    phone: p.phone,
    department: p.department,
    job_title: p.jobTitle,
    employee_number: p.employeeNumber,
    site_ids: p.siteIds,
    can_host: p.canHost,
    active: p.active,
    custom_fields: customFields,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
