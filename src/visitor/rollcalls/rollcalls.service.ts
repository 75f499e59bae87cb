import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions } from '../../database/unit-of-work';
import { EventsService } from '../events/events.service';
import { OrganisationsService } from '../organisations/organisations.service';
import { PeopleService } from '../people/people.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import type {
  CloseRollcallBody,
  MarkRollcallBody,
  RollcallsQuery,
  StartRollcallBody,
} from './dto/rollcall.request';
import {
  RollcallDetailResponse,
  RollcallResponse,
  toRollcallDetailResponse,
  toRollcallMarkResponse,
  toRollcallResponse,
} from './dto/rollcall.response';
import { ON_SITE_STAFF, OnSiteStaff } from './on-site-staff';
import { RollcallsRepository } from './rollcalls.repository';

/**
 * Roll calls: start (one active per site, enforced by the database; snapshots everyone on site), mark people
 * safe, missing or needing help, close. Events carry the roll call with its progress, never the people's names.
 */
@Injectable()
export class RollcallsService {
  constructor(
    private readonly repo: RollcallsRepository,
    private readonly orgs: OrganisationsService,
    private readonly people: PeopleService,
    @Inject(ON_SITE_STAFF) private readonly staff: OnSiteStaff,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  private async checkPeople(
    tenant: Tenant,
    named: { location: string; id?: string | null }[],
  ): Promise<void> {
    const errors = await this.people.unknownPeople(tenant, named);
    if (errors.length) throw ApiError.validation(errors);
  }

  async get(tenant: Tenant, id: string): Promise<RollcallDetailResponse> {
    const row = await this.repo.find(tenant, id);
    if (!row) throw ApiError.notFound(`Roll call ${id}`);
    return toRollcallDetailResponse(row, await this.repo.people(id));
  }

  async start(tenant: Tenant, input: StartRollcallBody): Promise<RollcallDetailResponse> {
    const sites = await this.orgs.existingSiteIds(tenant, [input.site_id]);
    if (!sites.has(input.site_id))
      throw ApiError.validation([
        { location: 'body.site_id', message: `no site ${input.site_id} in this organisation and mode` },
      ]);
    await this.checkPeople(tenant, [{ location: 'body.started_by', id: input.started_by }]);
    const now = this.clock.now();
    const employees = await this.staff.onSite(tenant, input.site_id, now);
    const id = newId('rollcall');
    return this.tx.run(async (uow) => {
      const started = await this.repo.start(
        uow.manager,
        tenant,
        { id, siteId: input.site_id, startedBy: input.started_by ?? null, now },
        employees,
      );
      if (started === 'conflict')
        throw new ApiError(
          'conflict',
          `A roll call is already active at site ${input.site_id}; close it before starting another.`,
        );
      const row = (await this.repo.find(tenant, id, uow.manager))!;
      await this.events.record(uow, tenant, 'rollcall.started', toRollcallResponse(row));
      return toRollcallDetailResponse(row, await this.repo.people(id, uow.manager));
    }, IS_RESPONSE);
  }

  page(tenant: Tenant, q: RollcallsQuery): Promise<Page<RollcallResponse>> {
    return this.cursors.codec.createdPage(
      'rollcalls',
      tenant,
      q,
      (limit, after) => this.repo.list(tenant, { siteId: q.site_id, status: q.status }, limit + 1, after),
      toRollcallResponse,
    );
  }

  /** Marks one person of an active roll call (again, if need be: the latest mark counts). */
  async mark(tenant: Tenant, id: string, input: MarkRollcallBody): Promise<RollcallDetailResponse> {
    // another tenant's roll call is not_found before anything in the body is judged
    if (!(await this.repo.find(tenant, id))) throw ApiError.notFound(`Roll call ${id}`);
    await this.checkPeople(tenant, [{ location: 'body.marked_by', id: input.marked_by }]);
    return this.tx.run(async (uow) => {
      const row = await this.repo.find(tenant, id, uow.manager, true);
      if (!row) throw ApiError.notFound(`Roll call ${id}`);
      if (row.status !== 'active')
        throw new ApiError('invalid_state', `Roll call ${id} is closed; people can no longer be marked.`);
      const now = this.clock.now();
      const marked = await this.repo.mark(uow.manager, id, input.subject_id, {
        status: input.status,
        note: input.note ?? null,
        markedBy: input.marked_by ?? null,
        at: now,
      });
      if (!marked)
        throw ApiError.validation([
          { location: 'body.subject_id', message: `${input.subject_id} is not on roll call ${id}` },
        ]);
      await this.repo.touch(uow.manager, id, now);
      const after = (await this.repo.find(tenant, id, uow.manager))!;
      await this.events.record(uow, tenant, 'rollcall.person_marked', {
        ...toRollcallResponse(after),
        marked: toRollcallMarkResponse(marked),
      });
      return toRollcallDetailResponse(after, await this.repo.people(id, uow.manager));
    }, IS_RESPONSE);
  }

  /** active → closed; `invalid_state` once closed. */
  async close(tenant: Tenant, id: string, input: CloseRollcallBody): Promise<RollcallDetailResponse> {
    if (!(await this.repo.find(tenant, id))) throw ApiError.notFound(`Roll call ${id}`);
    await this.checkPeople(tenant, [{ location: 'body.closed_by', id: input.closed_by }]);
    return this.tx.run(async (uow) => {
      if (!(await this.repo.close(uow.manager, tenant, id, input.closed_by ?? null, this.clock.now()))) {
        if (!(await this.repo.find(tenant, id, uow.manager))) throw ApiError.notFound(`Roll call ${id}`);
        throw new ApiError('invalid_state', `Roll call ${id} is already closed.`);
      }
      const row = (await this.repo.find(tenant, id, uow.manager))!;
      await this.events.record(uow, tenant, 'rollcall.closed', toRollcallResponse(row));
      return toRollcallDetailResponse(row, await this.repo.people(id, uow.manager));
    }, IS_RESPONSE);
  }
}
