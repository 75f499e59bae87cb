import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of an actor. */
export interface ActorRow {
  handle: string;
  display_name: string;
  kind: string;
  bio: string | null;
  avatar_url: string | null;
  verified: boolean;
  country: string | null;
  created_at: Timestamp;
}

const COLUMNS = `a.handle, a.display_name, a.kind, a.bio, a.avatar_url, a.verified, a.country, a.created_at`;
const PUBLIC = 'a.is_public';

/** Actors as the public API sees them: public ones only. */
@Injectable()
export class ActorsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: { kind?: string; country?: string }, limit: number, offset: number): Promise<PageRows<ActorRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.kind, (v) => `a.kind = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `a.country = ${v}`)
      .page<ActorRow>(
        this.ds,
        { select: COLUMNS, from: 'content.actor a', orderBy: 'a.handle' },
        limit,
        offset,
      );
  }

  async byHandle(handle: string): Promise<ActorRow | null> {
    const rows: ActorRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.actor a WHERE a.handle = $1 AND ${PUBLIC}`,
      [handle],
    );
    return rows[0] ?? null;
  }
}
