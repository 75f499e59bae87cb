import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { PageRows, PublicQuery } from '../common/public-query';
import { READ_DATA_SOURCE } from '../../database/read-replica';
import type { Timestamp } from '../../common/iso';

/** The public columns of a petition; the creator and every signature stay inside. */
export interface PetitionRow {
  id: string;
  slug: string;
  title: string;
  description: string;
  category: string;
  status: string;
  petition_target: number | null;
  signatures_count: number;
  image_url: string | null;
  country: string | null;
  target_country: string | null;
  created_at: Timestamp;
}

const COLUMNS = `p.id, p.slug, p.title, p.description, p.category, p.status, p.petition_target, p.signatures_count,
  p.image_url, p.country, p.target_country, p.created_at`;
const PUBLIC = `p.status = 'active'`;

/** Petitions as the public API sees them: only active ones; signatures only as counts. */
@Injectable()
export class PetitionsRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  list(
    f: { category?: string; country?: string },
    limit: number,
    offset: number,
  ): Promise<PageRows<PetitionRow>> {
    return new PublicQuery(PUBLIC)
      .filter(f.category?.toLowerCase(), (v) => `p.category = ${v}`)
      .filter(f.country?.toUpperCase(), (v) => `p.target_country = ${v}`)
      .page<PetitionRow>(
        this.ds,
        { select: COLUMNS, from: 'content.petition p', orderBy: 'p.created_at DESC, p.id DESC' },
        limit,
        offset,
      );
  }

  async bySlug(slug: string): Promise<PetitionRow | null> {
    const rows: PetitionRow[] = await preparedText(
      this.ds,
      `SELECT ${COLUMNS} FROM content.petition p WHERE p.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    return rows[0] ?? null;
  }

  async signaturesSince(petitionId: string, since: Date): Promise<number> {
    const rows: { n: number }[] = await preparedText(
      this.ds,
      `SELECT count(*)::int AS n FROM content.signature WHERE petition_id = $1 AND created_at >= $2`,
      [petitionId, since],
    );
    return rows[0].n;
  }
}
