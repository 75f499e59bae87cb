import { Inject, Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { RequestLogEntry } from './request-log.entity';

export type NewRequestLogEntry = Omit<RequestLogEntry, 'id'>;

@Injectable()
export class RequestLogRepository {
  private readonly repo: Repository<RequestLogEntry>;

  constructor(@Inject(DataSource) ds: DataSource) {
    this.repo = ds.getRepository(RequestLogEntry);
  }

  /** One statement for the whole batch, columns as arrays (cheaper to build than a VALUES list per row). */
  async insertMany(rows: NewRequestLogEntry[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof NewRequestLogEntry>(k: K) => rows.map((r) => r[k]);
    await this.repo.query(
      `INSERT INTO ops.request_log (request_id, error_ref, received_at, surface, method, path, status, error_code,
         duration_ms, client_ip, organisation_id, credential_id, livemode)
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[],
         $7::smallint[], $8::text[], $9::real[], $10::text[], $11::text[], $12::text[], $13::boolean[])`,
      [
        col('requestId'),
        col('errorRef'),
        col('receivedAt'),
        col('surface'),
        col('method'),
        col('path'),
        col('status'),
        col('errorCode'),
        col('durationMs'),
        col('clientIp'),
        col('organisationId'),
        col('credentialId'),
        col('livemode'),
      ],
    );
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
        `DELETE FROM ops.request_log WHERE id IN (SELECT id FROM ops.request_log WHERE received_at < $1 LIMIT $2)`,
        [before, batch],
      )) as [unknown, number];
      const n = Number(result[1] ?? 0);
      total += n;
      if (n < batch) return total;
    }
  }
}
