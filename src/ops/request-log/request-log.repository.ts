import { Inject, Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DataSource, Repository } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { RequestLogEntry } from './request-log.entity';

const COPY = `COPY ops.request_log (request_id, error_ref, received_at, surface, method, path, status, error_code,
  duration_ms, client_ip, organisation_id, credential_id, livemode) FROM STDIN`;

/** A text value in COPY's text format: backslash, tab and line breaks escaped; null as \\N. */
export function copyText(v: string | null): string {
  if (v === null) return '\\N';
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]) : v;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One row as a line of COPY text format, in the column order of `COPY`. */
export function copyLine(r: RequestLogEntry): string {
  return `${copyText(r.requestId)}\t${copyText(r.errorRef)}\t${r.receivedAt.toISOString()}\t${copyText(r.surface)}\t${copyText(r.method)}\t${copyText(r.path)}\t${r.status}\t${copyText(r.errorCode)}\t${r.durationMs}\t${copyText(r.clientIp)}\t${copyText(r.organisationId)}\t${copyText(r.credentialId)}\t${r.livemode === null ? '\\N' : r.livemode ? 't' : 'f'}\n`;
}

@Injectable()
export class RequestLogRepository {
  private readonly repo: Repository<RequestLogEntry>;

  constructor(@Inject(DataSource) private readonly ds: DataSource) {
    this.repo = ds.getRepository(RequestLogEntry);
  }

  /** Writes rows in one `COPY … FROM STDIN` (see `copy`). */
  insertMany(rows: RequestLogEntry[]): Promise<void> {
    return this.copy(rows.map(copyLine));
  }

  /**
   * Writes rows already in COPY text format (`copyLine`) in one `COPY … FROM STDIN`: the cheapest way into
   * PostgreSQL on both sides — one string, no per-value parameter encoding, and COPY's parser on the server.
   * All or nothing: a failed COPY stores none of the batch.
   */
  async copy(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    const text = lines.join('');
    const [client, release] = (await (this.ds.driver as PostgresDriver).obtainMasterConnection()) as [
      PoolClient,
      (err?: Error) => void,
    ];
    try {
      await new Promise<void>((resolve, reject) => {
        const stream = client.query(copyFrom(COPY));
        stream.on('finish', resolve);
        stream.on('error', reject);
        stream.end(text);
      });
      release();
    } catch (e) {
      release(e as Error);
      throw e;
    }
  }

  /** Newest first; a request id matches one request, a ref matches the failed request it was given to. */
  findByIdOrRef(idOrRef: string): Promise<RequestLogEntry[]> {
    return this.repo
      .createQueryBuilder('r')
      .where('r.requestId = :id', { id: idOrRef })
      .orWhere('r.errorRef = :ref', { ref: idOrRef.toUpperCase() })
      .orderBy('r.receivedAt', 'DESC')
      .limit(10)
      .getMany();
  }

  /** Deletes rows older than `before` in batches so the purge never holds long locks. Returns rows deleted. */
  async purgeOlderThan(before: Date, batch = 10_000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = (await this.repo.query(
        `DELETE FROM ops.request_log WHERE ctid = ANY(ARRAY(SELECT ctid FROM ops.request_log WHERE received_at < $1 LIMIT $2))`,
        [before, batch],
      )) as [unknown, number];
      const n = Number(result[1] ?? 0);
      total += n;
      if (n < batch) return total;
    }
  }
}
