import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a post, its author's public columns and its attachments (JSON built in SQL). */
export interface PostRow {
  id: string;
  body: string;
  group_slug: string | null;
  like_count: number;
  comment_count: number;
  created_at: Timestamp;
  author: {
    handle: string;
    display_name: string;
    avatar_url: string | null;
    kind: string;
    verified: boolean;
  };
  attachments: { type: string; title: string; url: string }[];
}

const COLUMNS = `p.id, p.body, p.group_slug, p.like_count, p.comment_count, p.created_at,
  json_build_object('handle', a.handle, 'display_name', a.display_name, 'avatar_url', a.avatar_url, 'kind', a.kind, 'verified', a.verified) AS author,
  COALESCE((SELECT json_agg(json_build_object('type', x.type, 'title', x.title, 'url', x.url) ORDER BY x.position)
              FROM content.post_attachment x WHERE x.post_id = p.id), '[]'::json) AS attachments`;
/**
 * A post is public when published by a public actor, outside any group or in a public group. The group is a
 * LEFT JOIN rather than `OR EXISTS (…)`, which PostgreSQL runs as a scan of every group per query.
 */
const FROM = `content.post p JOIN content.actor a ON a.handle = p.author_handle
  LEFT JOIN content.community_group pg ON pg.slug = p.group_slug`;
const PUBLIC = `p.status = 'published' AND a.is_public AND (p.group_slug IS NULL OR pg.visibility = 'public')`;

@Injectable()
export class PostsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: { author?: string; group?: string }, limit: number, offset: number): Promise<PageRows<PostRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.author, (v) => `p.author_handle = ${v}`)
      .filter(f.group, (v) => `p.group_slug = ${v}`)
      .page<PostRow>(
        this.ds,
        { select: COLUMNS, from: FROM, orderBy: 'p.created_at DESC, p.id DESC' },
        limit,
        offset,
      );
  }

  async byId(id: string): Promise<PostRow | null> {
    const rows: PostRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM ${FROM} WHERE p.id = $1 AND ${PUBLIC}`,
      [id],
    );
    return rows[0] ?? null;
  }
}
