import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller';
import { OpenApiRegistry } from './openapi.registry';

/** The served OpenAPI documents (one registry, filled at start-up), for the surfaces that serve them. */
@Module({ providers: [OpenApiRegistry], exports: [OpenApiRegistry] })
export class OpenApiModule {}

@Module({ imports: [OpenApiModule], controllers: [DocsController] })
export class DocsModule {}
