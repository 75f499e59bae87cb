import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../database/unit-of-work';
import { assertTenant, Tenant } from '../platform/tenant';
import { Erasure, HoldsVisitorData, VisitorDataHolder } from '../platform/visitor-data';
import { FILE_STORAGE, FileStorage } from './file-storage';
import type { FilePurpose } from './file-purposes';
import { change, rows } from '../../database/sql';
import { assertSandbox, HoldsSandboxData, SandboxDataHolder } from '../platform/sandbox-data';

export type FileStatus = 'pending' | 'ready' | 'rejected';

export interface FileRow {
  id: string;
  organisation_id: string;
  livemode: boolean;
  purpose: FilePurpose;
  content_type: string;
  size: number;
  filename: string | null;
  status: FileStatus;
  rejected_reason: string | null;
  storage_key: string;
  visit_id: string | null;
  visitor_id: string | null;
  uploaded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, organisation_id, livemode, purpose, content_type, size::int AS size, filename, status, rejected_reason,
  storage_key, visit_id, visitor_id, uploaded_at, created_at, updated_at`;

/** Registered files (the bytes are the storage driver's); erasure deletes a visitor's files, rows and bytes. */
@Injectable()
@HoldsVisitorData(12)
@HoldsSandboxData(12)
export class FilesRepository implements VisitorDataHolder, SandboxDataHolder {
  private readonly logger = new Logger('Files');

  constructor(
    @Inject(DataSource) private readonly ds: DataSource,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
  ) {}

  /** Sandbox reset: the test-mode tenant's files. */
  async clearSandbox(uow: UnitOfWork, tenant: Tenant): Promise<number> {
    assertSandbox(tenant);
    const { rows } = await change<{ storage_key: string }>(
      uow.manager,
      `DELETE FROM visitor.file WHERE organisation_id = $1 AND livemode = $2 RETURNING storage_key`,
      [tenant.organisationId, tenant.livemode],
    );
    // the bytes go once the reset has committed, as after an erasure
    if (rows.length)
      uow.afterCommit(async () => {
        for (const r of rows)
          await this.storage
            .delete(r.storage_key)
            .catch((e: Error) => this.logger.error(`reset file ${r.storage_key} not deleted: ${e.message}`));
      });
    return rows.length;
  }

  /** Inserts the file (with the visit's visitor, which its service read from the visits domain, for erasure). */
  async insert(
    tenant: Tenant,
    row: Omit<FileRow, 'organisation_id' | 'livemode'>,
    manager: EntityManager = this.ds.manager,
  ): Promise<FileRow> {
    assertTenant(tenant);
    const [inserted] = await rows<FileRow>(
      manager,
      `INSERT INTO visitor.file (id, organisation_id, livemode, purpose, content_type, size, filename, status,
                                 rejected_reason, storage_key, visit_id, visitor_id, uploaded_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
       RETURNING ${COLUMNS}`,
      [
        row.id,
        tenant.organisationId,
        tenant.livemode,
        row.purpose,
        row.content_type,
        row.size,
        row.filename,
        row.status,
        row.rejected_reason,
        row.storage_key,
        row.visit_id,
        row.visitor_id,
        row.uploaded_at,
        row.created_at,
      ],
    );
    return inserted;
  }

  async find(tenant: Tenant, id: string, m?: EntityManager): Promise<FileRow | null> {
    assertTenant(tenant);
    const rows: FileRow[] = await (m ?? this.ds.manager).query(
      `SELECT ${COLUMNS} FROM visitor.file WHERE id = $1 AND organisation_id = $2 AND livemode = $3`,
      [id, tenant.organisationId, tenant.livemode],
    );
    return rows[0] ?? null;
  }

  /**
   * A file by id alone: for a signed link, whose signature names the file and stands for the credential. With
   * `lock`, the row is locked in the caller's transaction (one upload at a time).
   */
  async findForLink(id: string, m?: EntityManager, lock = false): Promise<FileRow | null> {
    const rows: FileRow[] = await (m ?? this.ds.manager).query(
      `SELECT ${COLUMNS} FROM visitor.file WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** pending → ready or rejected; null when the file was no longer pending (another upload or check won). */
  async settle(
    id: string,
    outcome: { status: 'ready' } | { status: 'rejected'; reason: string },
    now: Date,
    m?: EntityManager,
  ): Promise<FileRow | null> {
    const { rows } = await change<FileRow>(
      m ?? this.ds.manager,
      `UPDATE visitor.file SET status = $2, rejected_reason = $3, uploaded_at = $4, updated_at = $4
        WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
      [id, outcome.status, outcome.status === 'rejected' ? outcome.reason : null, now],
    );
    return rows[0] ?? null;
  }

  /**
   * Erasure: the visitor's files (registered with one of their visits) are deleted; their bytes go once the
   * erasure has committed (a rolled-back erasure keeps them).
   */
  async eraseVisitor(uow: UnitOfWork, tenant: Tenant, { visitorId }: Erasure): Promise<void> {
    assertTenant(tenant);
    const { rows } = await change<{ storage_key: string }>(
      uow.manager,
      `DELETE FROM visitor.file WHERE organisation_id = $2 AND livemode = $3 AND visitor_id = $1 RETURNING storage_key`,
      [visitorId, tenant.organisationId, tenant.livemode],
    );
    if (rows.length)
      uow.afterCommit(async () => {
        for (const r of rows)
          await this.storage
            .delete(r.storage_key)
            .catch((e: Error) => this.logger.error(`erased file ${r.storage_key} not deleted: ${e.message}`));
      });
  }
}
