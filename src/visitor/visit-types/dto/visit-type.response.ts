import { ApiProperty } from '@nestjs/swagger';
import { PublicFormResponse } from '../../forms/dto/forms.response';

export class VisitTypeResponse {
  @ApiProperty({
    example: 'meeting',
    description: 'Lowercase letters, digits and underscores; starts with a letter; at most 40 characters',
  })
  key: string;
  @ApiProperty({ example: 'Meeting' }) name: string;
  @ApiProperty({ description: 'Turned on for this organisation' }) enabled: boolean;
  @ApiProperty({ description: 'Built in (one of the six keys) or defined by the organisation' })
  built_in: boolean;
  @ApiProperty({ description: 'Open for pre-registration with a publishable key' }) pre_registration: boolean;
  @ApiProperty({
    type: PublicFormResponse,
    nullable: true,
    description: 'Only the questions asked of the visitor; null unless pre_registration',
  })
  public_form: PublicFormResponse | null;
}
