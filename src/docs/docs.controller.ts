import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { stringify } from 'yaml';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { OpenApiRegistry } from './openapi.registry';
import { connectAppPage, errorsPage, indexPage, quickstartPage } from './docs.render';

const HTML = 'text/html; charset=utf-8';

/** The docs home, the error catalogue and the YAML contract; the references are Scalar's (api-reference.ts). */
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

  @Get('connect-an-app')
  @Header('Content-Type', HTML)
  connectApp(): string {
    return connectAppPage(this.config);
  }

  @Get('quickstart')
  @Header('Content-Type', HTML)
  quickstart(): string {
    return quickstartPage(this.config.baseUrl);
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
