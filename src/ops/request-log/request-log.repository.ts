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

  async insertMany(rows: NewRequestLogEntry[]): Promise<void> {
    if (rows.length > 0) await this.repo.createQueryBuilder().insert().values(rows).execute();
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
