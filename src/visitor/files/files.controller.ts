import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import { CurrentTenant } from '../platform/current';
import type { Tenant } from '../platform/tenant';
import { RegisterFileBody } from './dto/file.request';
import { FileResponse } from './dto/file.response';
import { FilesService } from './files.service';

@ApiTags('Files')
@Controller('v1/files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @Authorize({ scope: 'files:write' })
  @ApiOperation({
    summary: 'Register a file upload',
    description:
      'Registers an upload (purpose, content type, exact size) and returns a short-lived signed upload link for the bytes.',
    operationId: 'registerFile',
  })
  @ApiCreatedResponse({ type: FileResponse })
  register(@CurrentTenant() tenant: Tenant, @Body() body: RegisterFileBody): Promise<FileResponse> {
    return this.files.register(tenant, body);
  }

  @Get(':file_id')
  @Authorize({ scope: 'files:read' })
  @ApiOperation({
    summary: 'One file',
    description: 'With a short-lived signed download link once it is ready.',
    operationId: 'getFile',
  })
  @ApiOkResponse({ type: FileResponse })
  get(@CurrentTenant() tenant: Tenant, @Param('file_id') id: string): Promise<FileResponse> {
    return this.files.get(tenant, id);
  }
}
