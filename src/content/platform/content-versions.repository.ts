import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { preparedQuery } from '../../database/prepared';
import { READ_DATA_SOURCE } from '../../database/read-replica';

type Versions = ReadonlyMap<string, string>;

/**
 * Reads the change counters of content tables (content.table_version): all of them at once (a few dozen rows), and
 * one read at a time per process, shared by every request that arrived before it started. A request never uses a
 * read that started before it arrived (its snapshot could predate a change the request must see): while one is in
 * flight, the requests arriving wait for the next, which starts when it ends and serves them all. Under load a
 * revalidation thus costs a fraction of a round trip; when idle, one.
 */
@Injectable()
export class ContentVersionsRepository {
  private inFlight: Promise<Versions> | null = null;
  private next: Promise<Versions> | null = null;

  /**
   * The public reads' source (READ_DATA_SOURCE): the versions come from where the rows come from, so with a read
   * replica both lag alike.
   */
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  /**
   * The versions of `tables` (sorted names) as one string, `"41.7.1203"`; null when one of them has no version row
   * (a table without a counter cannot vouch for anything).
   */
  async read(tables: readonly string[]): Promise<string | null> {
    const all = await this.all();
    let out = '';
    for (const t of tables) {
      const v = all.get(t);
      if (v === undefined) return null;
      out = out ? `${out}.${v}` : v;
    }
    return out;
  }

  /** Every table's version, from a read that started after this call. */
  private all(): Promise<Versions> {
    if (!this.inFlight) {
      const read = this.readAll();
      this.inFlight = read;
      const clear = () => {
        if (this.inFlight === read) this.inFlight = null;
      };
      read.then(clear, clear);
      return read;
    }
    // The read in flight started before this request: wait for the one after it.
    if (!this.next) {
      const after = () => {
        this.next = null;
        return this.all();
      };
      this.next = this.inFlight.then(after, after);
    }
    return this.next;
  }

  private async readAll(): Promise<Versions> {
    const rows = await preparedQuery<{ table_name: string; version: string }>(
      this.ds,
      'content-table-versions',
      `SELECT table_name, version::text AS version FROM content.table_version`,
      [],
    );
    return new Map(rows.map((r) => [r.table_name, r.version]));
  }
}
