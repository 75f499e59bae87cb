import { Module } from '@nestjs/common';
import { PublicOpenApiController } from './openapi/public-openapi.controller';

/** The public content API (/public/v1). Domain modules are imported here. */
@Module({ controllers: [PublicOpenApiController] })
export class ContentModule {}
