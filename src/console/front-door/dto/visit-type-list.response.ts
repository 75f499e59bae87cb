import { ApiProperty } from '@nestjs/swagger';
import { VisitTypeResponse } from '../../../visitor/visit-types/dto/visit-type.response';

export class VisitTypeListResponse {
  @ApiProperty({ type: [VisitTypeResponse] }) data: VisitTypeResponse[];
}
