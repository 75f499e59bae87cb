import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OpenApiRegistry, OpenApiDocument } from '../../docs/openapi.registry';
import { NoCredential } from '../platform/authorize.decorator';

@ApiTags('Contract')
@Controller('v1')
export class VisitorOpenApiController {
  constructor(private readonly registry: OpenApiRegistry) {}

  @Get('openapi.json')
  @NoCredential()
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'This OpenAPI 3.1 document (no credential needed)',
    operationId: 'getVisitorOpenApi',
  })
  @ApiOkResponse({ description: 'OpenAPI 3.1 document, version 1.0.0-preview', schema: { type: 'object' } })
  get(): OpenApiDocument {
    return this.registry.get('visitor');
  }
}
