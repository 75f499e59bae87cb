import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/** The pages' one stylesheet, read once (CSP `style-src 'self'`: pages use no inline style). */
export const PAGES_CSS = readFileSync(join(__dirname, 'assets', 'pages.css'), 'utf8');

/**
 * htmx (npm `htmx.org`, pinned), the console's one script: served from node_modules by this app (CSP
 * `script-src 'self'` on console pages), configured by the layout's `htmx-config` meta tag, never required.
 */
export const HTMX_JS = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8');

@ApiExcludeController()
@Controller('assets')
export class PageAssetsController {
  @Get('pages.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  stylesheet(): string {
    return PAGES_CSS;
  }

  @Get('htmx.min.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  htmx(): string {
    return HTMX_JS;
  }
}
