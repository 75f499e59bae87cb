import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/**
 * The console's copy buttons, as progressive enhancement: a `<button data-copy="<element id>" hidden>` is shown and
 * copies the element's text to the clipboard; without JavaScript the button stays hidden and the text stays
 * selectable. Served by the app (`script-src 'self'` on console pages); no inline script anywhere.
 */
export const COPY_JS = `(function () {
  document.querySelectorAll('button[data-copy]').forEach(function (b) {
    var target = document.getElementById(b.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        b.textContent = 'Copied';
      });
    });
  });
})();
`;

@ApiExcludeController()
@Controller('assets')
export class ConsoleCopyScriptController {
  @Get('console-copy.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  script(): string {
    return COPY_JS;
  }
}
