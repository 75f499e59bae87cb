import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import { PublicQuery } from '../common/public-query';
import type { Timestamp } from '../../common/iso';

export interface BlogRow {
  title: string;
  slug: string;
  excerpt: string | null;
  published_at: Timestamp;
  featured_image_url: string | null;
  /** Built as JSON in SQL: the category's name and slug only. */
  category: { name: string; slug: string } | null;
}

export interface BlogPostRow extends BlogRow {
  content_html: string;
}

const COLUMNS = `b.title, b.slug, b.excerpt, b.published_at, b.featured_image_url,
  (SELECT json_build_object('name', c.name, 'slug', c.slug) FROM content.blog_category c WHERE c.id = b.category_id) AS category`;
const PUBLIC = `b.status = 'published' AND b.published_at IS NOT NULL`;

/** Published posts only; authors and editor notes stay inside. */
@Injectable()
export class BlogRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(f: { category?: string }, limit: number, offset: number) {
    return new PublicQuery(PUBLIC)
      .filter(
        f.category,
        (v) =>
          `b.category_id IN (SELECT c.id FROM content.blog_category c WHERE c.id = ${v} OR c.slug = ${v})`,
      )
      .page<BlogRow>(
        this.ds,
        { select: COLUMNS, from: 'content.blog_post b', orderBy: 'b.published_at DESC, b.id DESC' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<BlogPostRow | null> {
    const rows: BlogPostRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS}, b.content_html FROM content.blog_post b WHERE b.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }
}
