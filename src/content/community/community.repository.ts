import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PublicQuery } from '../common/public-query';

const ACTOR = `a.handle, a.display_name, a.kind, a.bio, a.avatar_url, a.verified, a.country, a.created_at`;
const GROUP = `g.slug, g.name, g.description, g.category, g.avatar_url, g.member_count, g.created_at`;
const POST = `p.id, p.body, p.group_slug, p.like_count, p.comment_count, p.created_at,
  json_build_object('handle', a.handle, 'display_name', a.display_name, 'avatar_url', a.avatar_url, 'kind', a.kind, 'verified', a.verified) AS author,
  COALESCE((SELECT json_agg(json_build_object('type', x.type, 'title', x.title, 'url', x.url) ORDER BY x.position)
              FROM content.post_attachment x WHERE x.post_id = p.id), '[]'::json) AS attachments`;
/**
 * A post is public when published by a public actor, outside any group or in a public group. The group is a
 * LEFT JOIN rather than `OR EXISTS (…)`, which PostgreSQL runs as a scan of every group per query.
 */
const POST_FROM = `content.post p JOIN content.actor a ON a.handle = p.author_handle
  LEFT JOIN content.community_group pg ON pg.slug = p.group_slug`;
const POST_PUBLIC = `p.status = 'published' AND a.is_public AND (p.group_slug IS NULL OR pg.visibility = 'public')`;
const ENTITY = `e.slug, e.name, e.kind, e.category, e.location, e.country, e.rating::float8 AS rating, e.review_count, e.is_claimed,
  e.is_verified, e.created_at`;
const HAZARD = `h.case_number, h.title, h.description, h.hazard_type, h.severity, h.status, h.location, h.country, h.reported_at, h.resolved_at`;

/** Actors, groups, posts, reviewed entities and safety hazards: public rows, public columns. */
@Injectable()
export class CommunityRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  private async one<T>(sql: string, value: string): Promise<T | null> {
    const rows: T[] = await this.ds.query(sql, [value]);
    return rows[0] ?? null;
  }

  actors(f: { kind?: string; country?: string }, limit: number, offset: number) {
    return new PublicQuery('a.is_public')
      .filter(f.kind, (v) => `a.kind = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `a.country = ${v}`)
      .page(this.ds, { select: ACTOR, from: 'content.actor a', orderBy: 'a.handle' }, limit, offset);
  }
  actor(handle: string) {
    return this.one(`SELECT ${ACTOR} FROM content.actor a WHERE a.handle = $1 AND a.is_public`, handle);
  }

  groups(f: { category?: string }, limit: number, offset: number) {
    return new PublicQuery(`g.visibility = 'public'`)
      .filter(f.category, (v) => `g.category = ${v}`)
      .page(
        this.ds,
        { select: GROUP, from: 'content.community_group g', orderBy: 'g.member_count DESC, g.slug' },
        limit,
        offset,
      );
  }
  group(slug: string) {
    return this.one(
      `SELECT ${GROUP} FROM content.community_group g WHERE g.slug = $1 AND g.visibility = 'public'`,
      slug,
    );
  }

  posts(f: { author?: string; group?: string }, limit: number, offset: number) {
    return new PublicQuery(POST_PUBLIC)
      .filter(f.author, (v) => `p.author_handle = ${v}`)
      .filter(f.group, (v) => `p.group_slug = ${v}`)
      .page(
        this.ds,
        {
          select: POST,
          from: POST_FROM,
          orderBy: 'p.created_at DESC, p.id DESC',
        },
        limit,
        offset,
      );
  }
  post(id: string) {
    return this.one(`SELECT ${POST} FROM ${POST_FROM} WHERE p.id = $1 AND ${POST_PUBLIC}`, id);
  }

  entities(f: { kind?: string; category?: string; country?: string }, limit: number, offset: number) {
    return new PublicQuery(`e.status = 'published'`)
      .filter(f.kind, (v) => `e.kind = ${v}`)
      .filter(f.category, (v) => `e.category = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `e.country = ${v}`)
      .page(
        this.ds,
        { select: ENTITY, from: 'content.review_entity e', orderBy: 'e.review_count DESC, e.slug' },
        limit,
        offset,
      );
  }
  entity(slug: string) {
    return this.one(
      `SELECT ${ENTITY} FROM content.review_entity e WHERE e.slug = $1 AND e.status = 'published'`,
      slug,
    );
  }

  hazards(
    f: { hazardType?: string; severity?: string; status?: string; country?: string },
    limit: number,
    offset: number,
  ) {
    return new PublicQuery(`h.status IN ('verified', 'resolved')`)
      .filter(f.hazardType, (v) => `h.hazard_type = ${v}`)
      .filter(f.severity, (v) => `h.severity = ${v}`)
      .filter(f.status, (v) => `h.status = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `h.country = ${v}`)
      .page(
        this.ds,
        {
          select: HAZARD,
          from: 'content.safety_hazard h',
          orderBy: 'h.reported_at DESC, h.case_number DESC',
        },
        limit,
        offset,
      );
  }
  hazard(caseNumber: string) {
    return this.one(
      `SELECT ${HAZARD} FROM content.safety_hazard h WHERE h.case_number = $1 AND h.status IN ('verified', 'resolved')`,
      caseNumber,
    );
  }
}
