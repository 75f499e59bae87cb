import { Global, Module } from '@nestjs/common';
import { DocsController } from './docs.controller';
import { OpenApiRegistry } from './openapi.registry';

@Global()
@Module({ providers: [OpenApiRegistry], exports: [OpenApiRegistry] })
export class OpenApiModule {}

@Module({ controllers: [DocsController] })
export class DocsModule {}
