import { Module } from '@nestjs/common';
import { VisitorOpenApiController } from './openapi/visitor-openapi.controller';

/** The visitor-management API (/v1). Platform and domain modules are imported here. */
@Module({ controllers: [VisitorOpenApiController] })
export class VisitorModule {}
