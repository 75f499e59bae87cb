import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { row } from '../../database/sql';
import type { FormSchema } from './custom-fields.validator';

/** One version of an organisation's form (`visitor.form`); a new version is a new row. */
export interface FormRow {
  organisationId: string;
  livemode: boolean;
  kind: 'visit' | 'person';
  version: number;
  schema: FormSchema;
  createdAt: Date;
}

@Injectable()
export class FormsRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  latest(
    tenant: { organisationId: string; livemode: boolean },
    kind: 'visit' | 'person',
    m?: EntityManager,
  ): Promise<FormRow | null> {
    if (!tenant.organisationId || typeof tenant.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    return row<FormRow>(
      m ?? this.ds,
      `SELECT organisation_id AS "organisationId", livemode, kind, version, schema, created_at AS "createdAt"
         FROM visitor.form WHERE organisation_id = $1 AND livemode = $2 AND kind = $3
        ORDER BY version DESC LIMIT 1`,
      [tenant.organisationId, tenant.livemode, kind],
    );
  }

  async save(m: EntityManager, f: FormRow): Promise<void> {
    await m.query(
      `INSERT INTO visitor.form (organisation_id, livemode, kind, version, schema, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [f.organisationId, f.livemode, f.kind, f.version, JSON.stringify(f.schema), f.createdAt],
    );
  }
}
