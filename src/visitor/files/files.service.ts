import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, UnitOfWork } from '../../database/unit-of-work';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import type { Tenant } from '../platform/tenant';
import { FileResponse, toFileResponse } from './dto/file.response';
import type { RegisterFileBody } from './dto/file.request';
import { FileLinks, LinkMethod } from './file-links';
import { FilePurpose, PURPOSE_LIMITS, SNIFF_BYTES, uploadProblem } from './file-purposes';
import { FILE_STORAGE, FileStorage } from './file-storage';
import { FileRow, FilesRepository } from './files.repository';

const refused = (detail: string) => new ApiError('forbidden', detail);

/**
 * The visitor of the tenant's visit, null when the tenant has no such visit: the visits domain answers (it sits
 * above files, so it registers the answer with `FilesService.answerVisitorsWith` when its module starts).
 */
export type VisitorOfVisit = (uow: UnitOfWork, tenant: Tenant, visitId: string) => Promise<string | null>;

/**
 * Files: registration (with the purpose's type and size limits) and its upload link, reads with a download link,
 * the checks of an upload (size and the type read from the bytes) before anything is kept, and the rule other
 * domains use to attach a file.
 */
@Injectable()
export class FilesService {
  readonly links: FileLinks;
  private readonly ttlMs: number;
  private visitorOfVisit: VisitorOfVisit | null = null;

  constructor(
    private readonly repo: FilesRepository,
    @Inject(FILE_STORAGE) readonly storage: FileStorage,
    private readonly clock: Clock,
    private readonly tx: Transactions,
    @InjectConfig() config: Config,
  ) {
    this.links = new FileLinks(config.secrets.sessionSecret);
    this.ttlMs = config.files.linkTtlSeconds * 1000;
  }

  /** The visits domain's answer to which visitor a visit is for (a file attached to a visit records it). */
  answerVisitorsWith(visitorOf: VisitorOfVisit): void {
    this.visitorOfVisit = visitorOf;
  }

  private expiry(): Date {
    return new Date(this.clock.now().getTime() + this.ttlMs);
  }

  private stored(f: FileRow) {
    return { id: f.id, storageKey: f.storage_key, contentType: f.content_type, size: f.size };
  }

  async register(tenant: Tenant, input: RegisterFileBody): Promise<FileResponse> {
    const limits = PURPOSE_LIMITS[input.purpose];
    const errors = [];
    if (!limits.types.includes(input.content_type))
      errors.push({
        location: 'body.content_type',
        message: `a ${input.purpose} must be one of ${limits.types.join(', ')}`,
      });
    if (input.size > limits.maxBytes)
      errors.push({
        location: 'body.size',
        message: `a ${input.purpose} may be at most ${limits.maxBytes} bytes`,
      });
    // A visitor's photo is theirs: it hangs on a visit, so erasing the visitor reaches it.
    if (input.purpose === 'visitor_photo' && !input.visit_id)
      errors.push({ location: 'body.visit_id', message: 'a visitor_photo must name its visit' });
    if (errors.length) throw ApiError.validation(errors);
    const id = newId('file');
    const now = this.clock.now();
    // the answer (with its upload link) is stored with the file, so a retry after a crash replays it
    return this.tx.run(async (uow) => {
      // a file attached to a visit records the visit's visitor (erasing the visitor reaches the file)
      let visitorId: string | null = null;
      if (input.visit_id) {
        if (!this.visitorOfVisit) throw new Error('files: the visits domain has not registered its answer');
        visitorId = await this.visitorOfVisit(uow, tenant, input.visit_id);
        if (!visitorId)
          throw ApiError.validation([
            {
              location: 'body.visit_id',
              message: `no visit ${input.visit_id} in this organisation and mode`,
            },
          ]);
      }
      const row = await this.repo.insert(
        tenant,
        {
          id,
          purpose: input.purpose,
          content_type: input.content_type,
          size: input.size,
          filename: input.filename ?? null,
          status: 'pending',
          rejected_reason: null,
          storage_key: `${tenant.organisationId}/${tenant.livemode ? 'live' : 'test'}/${id}`,
          visit_id: input.visit_id ?? null,
          visitor_id: visitorId,
          uploaded_at: null,
          created_at: now,
          updated_at: now,
        },
        uow.manager,
      );
      return toFileResponse(row, { upload: await this.storage.uploadLink(this.stored(row), this.expiry()) });
    }, IS_RESPONSE);
  }

  /**
   * A pending file whose bytes went straight to the bucket is checked on first read: ready when its size and
   * type are what was registered, else rejected and the object deleted. Files uploaded through this service
   * were checked on upload and are returned as they are.
   */
  private async settle(f: FileRow): Promise<FileRow> {
    if (f.status !== 'pending' || this.storage.uploadsThroughService) return f;
    const peek = await this.storage.peek(f.storage_key, SNIFF_BYTES);
    if (!peek) return f;
    const problem = await uploadProblem(
      { contentType: f.content_type, size: f.size },
      peek.size,
      peek.leading,
    );
    if (problem) await this.storage.delete(f.storage_key);
    const settled = await this.repo.settle(
      f.id,
      problem ? { status: 'rejected', reason: problem } : { status: 'ready' },
      this.clock.now(),
    );
    return settled ?? (await this.repo.findForLink(f.id)) ?? f;
  }

  async get(tenant: Tenant, id: string): Promise<FileResponse> {
    const found = await this.repo.find(tenant, id);
    if (!found) throw ApiError.notFound(`File ${id}`);
    const f = await this.settle(found);
    return toFileResponse(f, {
      download: f.status === 'ready' ? await this.storage.downloadLink(this.stored(f), this.expiry()) : null,
    });
  }

  /**
   * The check other domains make before pointing at a file: one of the tenant's, of an allowed purpose, and
   * uploaded (ready). `validation_failed` at `location` otherwise.
   */
  async requireUsable(
    tenant: Tenant,
    id: string,
    purposes: readonly FilePurpose[],
    location: string,
  ): Promise<void> {
    const found = await this.repo.find(tenant, id);
    const problem = !found
      ? `no file ${id} in this organisation and mode`
      : !purposes.includes(found.purpose)
        ? `file ${id} is a ${found.purpose}, not a ${purposes.join(' or ')}`
        : (await this.settle(found)).status !== 'ready'
          ? `file ${id} has not been uploaded (or its upload was rejected)`
          : null;
    if (problem) throw ApiError.validation([{ location, message: problem }]);
  }

  /** The file a link grants `method` on; tampered, expired and wrong-method links are `forbidden`. */
  private async fileOfLink(token: string, method: LinkMethod): Promise<FileRow> {
    const grant = this.links.verify(token, this.clock.now());
    if (grant === 'tampered') throw refused('This file link is not valid.');
    if (grant === 'expired') throw refused('This file link has expired; ask for a new one.');
    if (grant.method !== method) throw refused(`This file link is for ${grant.method}, not ${method}.`);
    const f = await this.repo.findForLink(grant.fileId);
    if (!f) throw ApiError.notFound(`File ${grant.fileId}`);
    return f;
  }

  /**
   * An upload through a signed PUT link (local driver): the Content-Type header, the size and the type read from
   * the bytes must be what was registered, or nothing is stored. A file is uploaded once.
   */
  async upload(token: string, contentType: string | undefined, bytes: Buffer): Promise<void> {
    const f = await this.fileOfLink(token, 'PUT');
    const declared = { contentType: f.content_type, size: f.size };
    if ((contentType ?? '').split(';')[0].trim().toLowerCase() !== f.content_type)
      throw ApiError.validation([
        { location: 'header.Content-Type', message: `must be ${f.content_type}, as registered` },
      ]);
    const problem = await uploadProblem(declared, bytes.length, bytes);
    if (problem) throw ApiError.validation([{ location: 'body', message: problem }]);
    // The bytes are written while the row is locked: of two concurrent uploads, the second finds the file ready
    // and writes nothing.
    await this.tx.run(async (uow) => {
      const locked = await this.repo.findForLink(f.id, uow.manager, true);
      if (!locked) throw ApiError.notFound(`File ${f.id}`);
      if (locked.status !== 'pending')
        throw new ApiError('invalid_state', `File ${f.id} is ${locked.status}; a file is uploaded once.`);
      await this.storage.put(f.storage_key, bytes, f.content_type);
      await this.repo.settle(f.id, { status: 'ready' }, this.clock.now(), uow.manager);
    });
  }

  /** The bytes behind a signed GET link (local driver). */
  async download(token: string): Promise<{ bytes: Buffer; contentType: string; filename: string | null }> {
    const f = await this.fileOfLink(token, 'GET');
    const bytes = f.status === 'ready' ? await this.storage.get(f.storage_key) : null;
    if (!bytes) throw ApiError.notFound(`File ${f.id}`);
    return { bytes, contentType: f.content_type, filename: f.filename };
  }
}
