import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/** The pages' one stylesheet, read once (CSP `style-src 'self'`: pages use no inline style). */
export const PAGES_CSS = readFileSync(join(__dirname, 'assets', 'pages.css'), 'utf8');

@ApiExcludeController()
@Controller('assets')
export class PageAssetsController {
  @Get('pages.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  stylesheet(): string {
    return PAGES_CSS;
  }
}
