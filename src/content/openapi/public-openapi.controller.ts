import { Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { OpenApiRegistry, OpenApiDocument } from '../../docs/openapi.registry';
import { PublicController } from './public-controller';

@PublicController('', 'Contract')
export class PublicOpenApiController {
  constructor(private readonly registry: OpenApiRegistry) {}

  @Get('openapi.json')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: 'This OpenAPI 3.1 document', operationId: 'getPublicOpenApi' })
  @ApiOkResponse({ description: 'OpenAPI 3.1 document, version 1.0.0', schema: { type: 'object' } })
  get(): OpenApiDocument {
    return this.registry.get('public');
  }
}
