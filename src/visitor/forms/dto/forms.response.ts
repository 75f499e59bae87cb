import { ApiProperty } from '@nestjs/swagger';

export class PublicFormResponse {
  @ApiProperty() version: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema of the visitor-facing questions',
  })
  schema: Record<string, unknown>;
}

export class FormsResponse {
  @ApiProperty({ type: PublicFormResponse, description: 'Custom fields of visits (JSON Schema)' })
  visit: PublicFormResponse;
  @ApiProperty({ type: PublicFormResponse, description: 'Custom fields of people (JSON Schema)' })
  person: PublicFormResponse;
}
