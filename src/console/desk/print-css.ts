import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

/**
 * The stylesheet of the console's printable pages (the roll-call list): plain black on white, a ruled table, and
 * in print no link back and no page furniture. Served by the app (CSP `style-src 'self'`: no inline style).
 */
export const PRINT_CSS = `body.print-sheet {
  margin: 1.5rem;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: #000;
  background: #fff;
}
.print-sheet h1 {
  font-size: 1.4rem;
  margin: 0 0 0.4rem;
}
.print-sheet a {
  color: #0b4fa8;
}
.print-sheet table {
  width: 100%;
  border-collapse: collapse;
  margin-top: 1rem;
}
.print-sheet th,
.print-sheet td {
  border: 1px solid #555;
  padding: 0.3rem 0.5rem;
  text-align: left;
  vertical-align: top;
}
.print-sheet thead th {
  background: #eee;
}
.print-sheet tr {
  break-inside: avoid;
}
@media print {
  .screen-only {
    display: none;
  }
  body.print-sheet {
    margin: 0;
    font-size: 11pt;
  }
  .print-sheet thead {
    display: table-header-group;
  }
  @page {
    margin: 1.5cm;
  }
}
`;

@ApiExcludeController()
@Controller('assets')
export class ConsolePrintStylesController {
  @Get('console-print.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  stylesheet(): string {
    return PRINT_CSS;
  }
}
