import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import { DataSource, EntityManager } from 'typeorm';
import { change, row, rows } from '../../database/sql';

/** A row of `visitor.visit_type` (a type's settings in one mode; built-in types without a row use defaults). */
export interface VisitTypeRow {
  organisationId: string;
  livemode: boolean;
  key: string;
  name: string;
  enabled: boolean;
  preRegistration: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `organisation_id AS "organisationId", livemode, key, name, enabled,
  pre_registration AS "preRegistration", created_at AS "createdAt", updated_at AS "updatedAt"`;

@Injectable()
export class VisitTypesRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  all(tenant: Tenant): Promise<VisitTypeRow[]> {
    if (!tenant.organisationId || typeof tenant.livemode !== 'boolean')
      throw new Error('tenant (organisationId, livemode) is required');
    return rows<VisitTypeRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM visitor.visit_type WHERE organisation_id = $1 AND livemode = $2 ORDER BY key`,
      [tenant.organisationId, tenant.livemode],
    );
  }

  /** One type's row (null for a built-in type never changed, or an unknown key). */
  async one(tenant: Tenant, key: string): Promise<Pick<VisitTypeRow, 'enabled' | 'preRegistration'> | null> {
    const rows: { enabled: boolean; pre_registration: boolean }[] = await this.ds.query(
      `SELECT enabled, pre_registration FROM visitor.visit_type WHERE organisation_id = $1 AND livemode = $2 AND key = $3`,
      [tenant.organisationId, tenant.livemode, key],
    );
    return rows[0] ? { enabled: rows[0].enabled, preRegistration: rows[0].pre_registration } : null;
  }

  /** One type's full row in the caller's transaction, locked for a change (null when absent). */
  async lockOne(m: EntityManager, tenant: Tenant, key: string): Promise<VisitTypeRow | null> {
    return row<VisitTypeRow>(
      m,
      `SELECT ${COLUMNS} FROM visitor.visit_type
        WHERE organisation_id = $1 AND livemode = $2 AND key = $3 FOR UPDATE`,
      [tenant.organisationId, tenant.livemode, key],
    );
  }

  async upsert(m: EntityManager, t: VisitTypeRow): Promise<void> {
    await m.query(
      `INSERT INTO visitor.visit_type
              (organisation_id, livemode, key, name, enabled, pre_registration, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (organisation_id, livemode, key) DO UPDATE
          SET name = EXCLUDED.name, enabled = EXCLUDED.enabled, pre_registration = EXCLUDED.pre_registration,
              updated_at = EXCLUDED.updated_at`,
      [t.organisationId, t.livemode, t.key, t.name, t.enabled, t.preRegistration, t.createdAt, t.updatedAt],
    );
  }

  /** Deletes the type's rows in both modes; returns how many there were. */
  async deleteEverywhere(m: EntityManager, organisationId: string, key: string): Promise<number> {
    const { affected: n } = await change(
      m,
      `DELETE FROM visitor.visit_type WHERE organisation_id = $1 AND key = $2`,
      [organisationId, key],
    );
    return n;
  }
}
