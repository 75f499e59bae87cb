import { Controller, Get, Param } from '@nestjs/common';
import { OperatorOnly } from '../console-access';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { ApiError } from '../../common/errors/api-error';
import { RequestLogService } from '../../ops/request-log/request-log.service';
import {
  RequestLogLookupResponse,
  toRequestLogResponse,
} from '../../ops/request-log/dto/request-log.response';

@ApiExcludeController()
@ApiBearerAuth()
@OperatorOnly()
@Controller('console/support')
export class SupportController {
  constructor(private readonly requestLog: RequestLogService) {}

  /** A request by its `Svc-Request-Id` (`req_…`) or by the `ref` of a public error (`ERR-…`). */
  @Get('requests/:idOrRef')
  async findRequest(@Param('idOrRef') idOrRef: string): Promise<RequestLogLookupResponse> {
    await this.requestLog.flush();
    const rows = idOrRef.length <= 64 ? await this.requestLog.find(idOrRef) : [];
    if (rows.length === 0) throw ApiError.notFound(`Request ${idOrRef.slice(0, 64)}`);
    return { data: rows.map(toRequestLogResponse) };
  }
}
