import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a community group (private and secret groups are never selected). */
export interface GroupRow {
  slug: string;
  name: string;
  description: string | null;
  category: string;
  avatar_url: string | null;
  member_count: number;
  created_at: Timestamp;
}

const COLUMNS = `g.slug, g.name, g.description, g.category, g.avatar_url, g.member_count, g.created_at`;
const PUBLIC = `g.visibility = 'public'`;

@Injectable()
export class GroupsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: { category?: string }, limit: number, offset: number): Promise<PageRows<GroupRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.category?.toLowerCase(), (v) => `g.category = ${v}`)
      .page<GroupRow>(
        this.ds,
        { select: COLUMNS, from: 'content.community_group g', orderBy: 'g.member_count DESC, g.slug' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<GroupRow | null> {
    const rows: GroupRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.community_group g WHERE g.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }
}
