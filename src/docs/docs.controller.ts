import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { stringify } from 'yaml';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { OpenApiRegistry } from './openapi.registry';
import { connectAppPage, errorsPage, indexPage, referencePage } from './docs.render';

const HTML = 'text/html; charset=utf-8';

@ApiExcludeController()
@Controller('docs')
export class DocsController {
  constructor(
    private readonly registry: OpenApiRegistry,
    @InjectConfig() private readonly config: Config,
  ) {}

  @Get()
  @Header('Content-Type', HTML)
  index(): string {
    return indexPage(this.config.docsUrl);
  }

  @Get('public')
  @Header('Content-Type', HTML)
  publicReference(): string {
    return referencePage(this.registry.get('public'));
  }

  @Get('visitor')
  @Header('Content-Type', HTML)
  visitorReference(): string {
    return referencePage(this.registry.get('visitor'));
  }

  @Get('connect-an-app')
  @Header('Content-Type', HTML)
  connectApp(): string {
    return connectAppPage(this.config);
  }

  @Get('errors')
  @Header('Content-Type', HTML)
  errors(): string {
    return errorsPage();
  }

  /** The visitor contract download named by the spec (`{docs_url}/openapi.yaml`). */
  @Get('openapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  visitorYaml(): string {
    return stringify(this.registry.get('visitor'));
  }
}
