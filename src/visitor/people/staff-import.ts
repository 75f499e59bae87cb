import { Injectable } from '@nestjs/common';
import { parse } from 'csv-parse';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { pipeline, Transform, type Readable } from 'node:stream';
import { Transactions } from '../../database/unit-of-work';
import { PeopleRepository, StaffRow } from './people.repository';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors/api-error';
import { OrganisationsService } from '../organisations/organisations.service';
import { assertTenant, Tenant } from '../platform/tenant';

/** The staff CSV columns of the spec, in its order; `name` and `email` are required. */
export const STAFF_COLUMNS = [
  'name',
  'email',
  'phone',
  'department',
  'job_title',
  'site',
  'employee_number',
] as const;
type Column = (typeof STAFF_COLUMNS)[number];
const REQUIRED: Column[] = ['name', 'email'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const BATCH = 500;

export interface ImportProblem {
  /** Line of the file (1 is the header). */
  line: number;
  column: string;
  message: string;
}

export interface ImportResult {
  dry_run: boolean;
  rows: number;
  created: number;
  updated: number;
  problems: ImportProblem[];
}

/** Refuses bytes that are not UTF-8 (streaming, with the line they are on). */
function utf8Only(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        const text = decoder.decode(chunk, { stream: true });
        line += text.split('\n').length - 1;
        done(null, text);
      } catch {
        done(new EncodingError(line));
      }
    },
    flush(done) {
      try {
        done(null, decoder.decode());
      } catch {
        done(new EncodingError(line));
      }
    },
  });
}

class EncodingError extends Error {
  constructor(readonly line: number) {
    super(`the file is not UTF-8 text (first bad byte on line ${line}); save it as CSV UTF-8 and try again`);
  }
}

/**
 * The staff CSV import (`people import`, console upload): the spec's columns, UTF-8 (a BOM is skipped), parsed as a
 * stream with csv-parse. `email` matches a person case-insensitively (updated) or makes a new one (an employee:
 * can_host false); phones in E.164 or national format (the organisation's country); `site` names or `site_…` ids,
 * several separated by `;`. Every row is checked and written in one transaction, in batches as the file streams;
 * any problem rolls everything back, and every problem is reported with its line and column. A dry run does the
 * same and always rolls back, so its counts are what a real import would do.
 */
@Injectable()
export class StaffImport {
  constructor(
    private readonly people: PeopleRepository,
    private readonly orgs: OrganisationsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
  ) {}

  async run(tenant: Tenant, input: Readable, opts: { dryRun: boolean }): Promise<ImportResult> {
    assertTenant(tenant);
    const org = await this.orgs.findOrganisation(tenant.organisationId);
    const sites = await this.orgs.siteNames(tenant);
    const siteIds = new Set(sites.map((s) => s.id));
    const siteByName = new Map(sites.map((s) => [s.name.trim().toLowerCase(), s.id]));
    const result: ImportResult = { dry_run: opts.dryRun, rows: 0, created: 0, updated: 0, problems: [] };
    const rollback = new Error('rollback');
    try {
      await this.tx.run(async (uow) => {
        const seen = new Map<string, number>();
        let batch: StaffRow[] = [];
        const flush = async () => {
          if (batch.length && !result.problems.length) {
            const inserted = await this.people.upsertByEmail(uow.manager, tenant, batch, this.clock.now());
            result.created += inserted;
            result.updated += batch.length - inserted;
          }
          batch = [];
        };
        const parser = parse({
          bom: true,
          columns: (h: string[]) => this.header(h),
          info: true,
          skip_empty_lines: true,
          trim: true,
        });
        // pipeline destroys every stage with the first error, so the loop below ends with it
        pipeline(input, utf8Only(), parser, () => undefined);
        for await (const { record, info } of parser as AsyncIterable<{
          record: Record<string, string>;
          info: { lines: number };
        }>) {
          result.rows++;
          const row = this.row(
            record,
            info.lines,
            org?.country ?? 'GH',
            siteIds,
            siteByName,
            seen,
            result.problems,
          );
          if (row) batch.push(row);
          if (batch.length >= BATCH) await flush();
        }
        await flush();
        if (opts.dryRun || result.problems.length) throw rollback;
      });
    } catch (e) {
      if (e instanceof EncodingError || (e as { cause?: unknown }).cause instanceof EncodingError)
        throw ApiError.validation([
          {
            location: 'body.file',
            message: (e instanceof EncodingError ? e : (e as { cause: EncodingError }).cause).message,
          },
        ]);
      if (e instanceof HeaderError)
        throw ApiError.validation([{ location: 'body.file', message: e.message }]);
      if ((e as { code?: string }).code?.startsWith('CSV_'))
        throw ApiError.validation([
          { location: 'body.file', message: `not a readable CSV file: ${(e as Error).message}` },
        ]);
      if (e !== rollback) throw e;
    }
    if (result.problems.length) result.created = result.updated = 0;
    return result;
  }

  private header(h: string[]): string[] {
    const names = h.map((c) => c.trim().toLowerCase());
    const unknown = names.filter((c) => !(STAFF_COLUMNS as readonly string[]).includes(c));
    const missing = REQUIRED.filter((c) => !names.includes(c));
    const twice = names.filter((c, i) => names.indexOf(c) !== i);
    const problems = [
      ...unknown.map((c) => `unknown column "${c}"`),
      ...missing.map((c) => `missing column "${c}"`),
      ...twice.map((c) => `column "${c}" appears twice`),
    ];
    if (problems.length)
      throw new HeaderError(`line 1: ${problems.join('; ')} (columns: ${STAFF_COLUMNS.join(', ')})`);
    return names;
  }

  private row(
    r: Record<string, string>,
    line: number,
    country: string,
    siteIds: Set<string>,
    siteByName: Map<string, string>,
    seen: Map<string, number>,
    problems: ImportProblem[],
  ): StaffRow | null {
    const before = problems.length;
    const bad = (column: string, message: string) => problems.push({ line, column, message });
    const v = (c: Column) => (r[c] ?? '').trim();
    if (!v('name')) bad('name', 'is required');
    const email = v('email');
    if (!email) bad('email', 'is required');
    else if (!EMAIL.test(email) || email.length > 320) bad('email', 'is not an e-mail address');
    else {
      const first = seen.get(email.toLowerCase());
      if (first) bad('email', `is also on line ${first}`);
      else seen.set(email.toLowerCase(), line);
    }
    let phone: string | null = null;
    if (v('phone')) {
      const p = parsePhoneNumberFromString(v('phone'), country as CountryCode);
      if (!p || !p.isValid()) bad('phone', `is not a valid phone number (E.164 or a ${country} number)`);
      else phone = p.number;
    }
    const site_ids: string[] = [];
    for (const ref of v('site')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const id = ref.startsWith('site_')
        ? siteIds.has(ref)
          ? ref
          : undefined
        : siteByName.get(ref.toLowerCase());
      if (!id) bad('site', `no site "${ref}" in this organisation and mode`);
      else if (!site_ids.includes(id)) site_ids.push(id);
    }
    for (const c of ['name', 'department', 'job_title', 'employee_number'] as const)
      if (v(c).length > 200) bad(c, 'is longer than 200 characters');
    if (problems.length > before) return null;
    const opt = (c: Column) => v(c) || null;
    return {
      name: v('name'),
      email,
      phone,
      department: opt('department'),
      job_title: opt('job_title'),
      site_ids,
      employee_number: opt('employee_number'),
    };
  }
}

class HeaderError extends Error {}
