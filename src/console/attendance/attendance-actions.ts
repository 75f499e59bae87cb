import { StreamableFile } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import type { AuditService } from '../../visitor/audit/audit.service';
import type { TimesheetExport } from '../../visitor/attendance/timesheet-export';
import type { Tenant } from '../../visitor/platform/tenant';

/**
 * The timesheet CSV as a download (`Content-Disposition: attachment`), the file `attendance export` writes: range
 * problems are refused (thrown) before the first byte is sent; a later failure ends the stream. Used by the JSON
 * endpoint and the attendance page's download link.
 */
export async function timesheetFile(
  exporter: TimesheetExport,
  tenant: Tenant,
  from: string,
  to: string,
  kind: 'daily' | 'summary',
): Promise<StreamableFile> {
  const out = new PassThrough();
  const written = exporter.write(tenant, from, to, kind, out);
  await Promise.race([written, new Promise((r) => out.once('readable', r))]);
  written.catch((e: Error) => out.destroy(e));
  return new StreamableFile(out, {
    type: 'text/csv; charset=utf-8',
    disposition: `attachment; filename="timesheet-${kind}-${from}-${to}.csv"`,
  });
}

/**
 * The audit row of an attendance change made in the console (page or JSON endpoint): the signed-in person, the
 * mode worked on, the request (id and address).
 */
export function auditAttendance(
  audit: AuditService,
  req: FastifyRequest,
  account: ConsoleCaller,
  tenant: Tenant,
  action: string,
  target: { type: string; id: string } | undefined,
  data: Record<string, unknown>,
): Promise<void> {
  return audit.record({
    organisationId: tenant.organisationId,
    livemode: tenant.livemode,
    action,
    actor: { type: 'console_account', id: account.id },
    target,
    data,
    request: req,
  });
}
