import { Inject, Injectable } from '@nestjs/common';
import { preparedText } from '../../database/prepared';
import { DataSource } from 'typeorm';
import { READ_DATA_SOURCE } from '../../database/read-replica';

/** The public columns of a profile; e-mail, phone and the internal id are never selected. */
export interface ProfileRow {
  username: string;
  full_name: string | null;
  bio: string | null;
  avatar_url: string | null;
  country: string | null;
  account_type: string | null;
  signatures_count: number;
}

/** Public profiles: only people who made theirs public. */
@Injectable()
export class ProfilesRepository {
  constructor(@Inject(READ_DATA_SOURCE) private readonly ds: DataSource) {}

  async publicProfile(username: string): Promise<ProfileRow | null> {
    const rows: ProfileRow[] = await preparedText(
      this.ds,
      `SELECT a.username, a.full_name, a.bio, a.avatar_url, a.country, a.account_type,
              (SELECT count(*)::int FROM content.signature s WHERE s.signer_id = a.id) AS signatures_count
         FROM content.account a WHERE a.username = $1 AND a.public_profile`,
      [username],
    );
    return rows[0] ?? null;
  }
}
