import { Injectable } from '@nestjs/common';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { IS_RESPONSE, Transactions, UnitOfWork } from '../../database/unit-of-work';
import type { EventTypeOf } from '../events/event-types';
import { EventsService } from '../events/events.service';
import { FormsService } from '../forms/forms.service';
import type { Form } from '../forms/custom-fields.validator';
import { OrganisationsService } from '../organisations/organisations.service';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { Page } from '../platform/pagination';
import { PLAN_RULES } from '../platform/plans';
import type { PeopleQuery } from './dto/person.request';
import { PeopleFilter, PeopleRepository, PersonRow, Tenant } from './people.repository';
import { PersonResponse, toPersonResponse } from './dto/person.response';

export interface PersonInput {
  name?: string;
  email?: string;
  phone?: string | null;
  department?: string | null;
  job_title?: string | null;
  employee_number?: string | null;
  site_ids?: string[];
  can_host?: boolean;
  custom_fields?: Record<string, unknown>;
}

/** Who is reading: integrations (API keys, connected apps) never see protected answers; the console does. */
export type Audience = 'integration' | 'console';

const emailTaken = (email: string) =>
  new ApiError('conflict', `A person with the e-mail ${email} already exists.`, [
    { location: 'body.email', message: 'is already used by another person' },
  ]);

/** People (hosts and employees): create, change, deactivate, reactivate; events in the same transaction. */
@Injectable()
export class PeopleService {
  constructor(
    private readonly repo: PeopleRepository,
    private readonly forms: FormsService,
    private readonly orgs: OrganisationsService,
    private readonly events: EventsService,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** GET /v1/people: one page, oldest first, with a signed cursor. */
  async page(tenant: Tenant, q: PeopleQuery): Promise<Page<PersonResponse>> {
    const limit = q.limit ?? 25;
    const after = q.cursor
      ? this.cursors.codec.decode('people', tenant, { ...q, cursor: q.cursor }, 2)
      : undefined;
    const res = await this.list(tenant, {
      q: q.q,
      canHost: q.can_host,
      email: q.email,
      limit,
      after: after ? { createdAt: new Date(String(after[0])), id: String(after[1]) } : undefined,
    });
    return {
      data: res.data,
      has_more: res.hasMore,
      next_cursor:
        res.hasMore && res.last
          ? this.cursors.codec.encode('people', tenant, q, [res.last.createdAt.toISOString(), res.last.id])
          : null,
    };
  }

  /** Every `site_ids` entry must be a site of the tenant: one error per missing site, at its index. */
  private async checkSites(tenant: Tenant, ids: string[] | undefined): Promise<void> {
    if (!ids?.length) return;
    const found = await this.orgs.existingSiteIds(tenant, ids);
    const errors = ids
      .map((id, i) => ({ id, i }))
      .filter(({ id }) => !found.has(id))
      .map(({ i, id }) => ({
        location: `body.site_ids.${i}`,
        message: `no site ${id} in this organisation and mode`,
      }));
    if (errors.length) throw ApiError.validation(errors);
  }

  private view(form: Form, row: PersonRow, audience: Audience): PersonResponse {
    return toPersonResponse(
      row,
      audience === 'console' ? row.customFields : this.forms.protectedOmitted(form, row.customFields),
    );
  }

  private async record(
    uow: UnitOfWork,
    tenant: Tenant,
    type: EventTypeOf<'person'>,
    form: Form,
    row: PersonRow,
  ): Promise<void> {
    await this.events.record(uow, tenant, type, this.view(form, row, 'integration'));
  }

  /** Throws `validation_failed` at body.custom_fields.<key> for every answer that does not fit the person form. */
  private async checkAnswers(
    uow: UnitOfWork,
    tenant: Tenant,
    form: Form,
    answers: Record<string, unknown>,
  ): Promise<void> {
    const errors = await this.forms.answerProblems(tenant, form, 'person', answers, {
      existingPeople: (ids) => this.repo.existingIds(tenant, ids, uow.manager),
    });
    if (errors.length) throw ApiError.validation(errors);
  }

  /**
   * Live mode: one more active host must fit the plan's host limit (`plan_required` otherwise). Every path that
   * can make an active host calls this inside its transaction; the count runs under a lock of the tenant.
   */
  private async assertRoomForHost(uow: UnitOfWork, tenant: Tenant): Promise<void> {
    if (!tenant.livemode) return;
    const org = await this.orgs.findOrganisation(tenant.organisationId, uow);
    const max = org ? PLAN_RULES[org.plan].maxHosts : null;
    if (!org || max === null) return;
    if ((await this.repo.countHostsLocked(uow.manager, tenant)) >= max)
      throw new ApiError('plan_required', `The ${org.plan} plan allows ${max} hosts; upgrade to add more.`);
  }

  async create(
    tenant: Tenant,
    input: PersonInput & { name: string; email: string },
    audience: Audience = 'integration',
  ): Promise<PersonResponse> {
    await this.checkSites(tenant, input.site_ids);
    return this.tx.run(async (uow) => {
      const form = await this.forms.current(tenant, 'person', uow.manager);
      await this.checkAnswers(uow, tenant, form, input.custom_fields ?? {});
      if (input.can_host !== false) await this.assertRoomForHost(uow, tenant);
      const now = this.clock.tick();
      const row: PersonRow = {
        id: newId('person'),
        ...tenant,
        name: input.name.trim(),
        email: input.email.trim(),
        phone: input.phone ?? null,
        department: input.department ?? null,
        jobTitle: input.job_title ?? null,
        employeeNumber: input.employee_number ?? null,
        siteIds: [...new Set(input.site_ids ?? [])],
        canHost: input.can_host ?? true,
        active: true,
        customFields: input.custom_fields ?? {},
        createdAt: now,
        updatedAt: now,
      };
      if ((await this.repo.insert(uow.manager, row)) === 'email_taken') throw emailTaken(row.email);
      await this.record(uow, tenant, 'person.created', form, row);
      return this.view(form, row, audience);
    }, IS_RESPONSE);
  }

  /**
   * Problems of the people a body names by id (each must be a person of the tenant), one per unknown id at its
   * location; absent ids are skipped.
   */
  async unknownPeople(
    tenant: Tenant,
    named: { location: string; id?: string | null }[],
  ): Promise<FieldError[]> {
    const ids = named.map((n) => n.id).filter((id): id is string => !!id);
    if (!ids.length) return [];
    const found = await this.repo.existingIds(tenant, ids);
    return named
      .filter((n) => n.id && !found.has(n.id))
      .map((n) => ({ location: n.location, message: `no person ${n.id} in this organisation and mode` }));
  }

  /** The tenant's person, null when unknown (locked for the caller's transaction with `lock`). */
  find(tenant: Tenant, id: string, uow?: UnitOfWork, lock = false): Promise<PersonRow | null> {
    return this.repo.find(tenant, id, uow?.manager, lock);
  }

  /** Ids of the given people that exist in this tenant. */
  existingIds(tenant: Tenant, ids: string[], uow?: UnitOfWork): Promise<Set<string>> {
    return this.repo.existingIds(tenant, ids, uow?.manager);
  }

  /** People of this tenant by e-mail (case-insensitive): lower-cased e-mail → person id, for those that match. */
  idsByEmail(tenant: Tenant, emails: string[]): Promise<Map<string, string>> {
    return this.repo.idsByEmail(tenant, emails);
  }

  async get(tenant: Tenant, id: string, audience: Audience = 'integration'): Promise<PersonResponse> {
    const row = await this.repo.find(tenant, id);
    if (!row) throw ApiError.notFound(`Person ${id}`);
    return this.view(await this.forms.current(tenant, 'person'), row, audience);
  }

  async list(
    tenant: Tenant,
    filter: PeopleFilter,
    audience: Audience = 'integration',
  ): Promise<{ data: PersonResponse[]; hasMore: boolean; last: PersonRow | null }> {
    const rows = await this.repo.list(tenant, filter);
    const page = rows.slice(0, filter.limit);
    const form = await this.forms.current(tenant, 'person');
    return {
      data: page.map((r) => this.view(form, r, audience)),
      hasMore: rows.length > filter.limit,
      last: page[page.length - 1] ?? null,
    };
  }

  async update(
    tenant: Tenant,
    id: string,
    input: PersonInput,
    audience: Audience = 'integration',
  ): Promise<PersonResponse> {
    await this.checkSites(tenant, input.site_ids);
    return this.tx.run(async (uow) => {
      const row = await this.repo.find(tenant, id, uow.manager, true);
      if (!row) throw ApiError.notFound(`Person ${id}`);
      const form = await this.forms.current(tenant, 'person', uow.manager);
      const customFields =
        input.custom_fields !== undefined
          ? { ...row.customFields, ...input.custom_fields }
          : row.customFields;
      if (input.custom_fields !== undefined) await this.checkAnswers(uow, tenant, form, customFields);
      if (input.can_host === true && row.active && !row.canHost) await this.assertRoomForHost(uow, tenant);
      const changes: Partial<PersonRow> = { updatedAt: this.clock.now(), customFields };
      if (input.name !== undefined) changes.name = input.name.trim();
      if (input.email !== undefined) changes.email = input.email.trim();
      if (input.phone !== undefined) changes.phone = input.phone;
      if (input.department !== undefined) changes.department = input.department;
      if (input.job_title !== undefined) changes.jobTitle = input.job_title;
      if (input.employee_number !== undefined) changes.employeeNumber = input.employee_number;
      if (input.site_ids !== undefined) changes.siteIds = [...new Set(input.site_ids)];
      if (input.can_host !== undefined) changes.canHost = input.can_host;
      if ((await this.repo.update(uow.manager, tenant, id, changes)) === 'email_taken')
        throw emailTaken(changes.email ?? row.email);
      const updated = { ...row, ...changes } as PersonRow;
      await this.record(uow, tenant, 'person.updated', form, updated);
      return this.view(form, updated, audience);
    });
  }

  /** The bulk seeder's test-mode hosts at new organisations' sites (see `PeopleRepository.seedHosts`). */
  seedHosts(
    sites: { organisationId: string; siteId: string }[],
    perSite: number,
  ): Promise<{ inserted: number; ids: string[] }> {
    return this.repo.seedHosts(sites, perSite);
  }

  /** Deactivate (`active: false`) or reactivate; doing either twice is `invalid_state`. */
  async setActive(
    tenant: Tenant,
    id: string,
    active: boolean,
    audience: Audience = 'integration',
  ): Promise<PersonResponse> {
    return this.tx.run(async (uow) => {
      const row = await this.repo.find(tenant, id, uow.manager, true);
      if (!row) throw ApiError.notFound(`Person ${id}`);
      if (row.active === active)
        throw new ApiError('invalid_state', `Person ${id} is already ${active ? 'active' : 'deactivated'}.`);
      if (active && row.canHost) await this.assertRoomForHost(uow, tenant);
      const changes = { active, updatedAt: this.clock.now() };
      await this.repo.update(uow.manager, tenant, id, changes);
      const form = await this.forms.current(tenant, 'person', uow.manager);
      const updated = { ...row, ...changes };
      await this.record(uow, tenant, active ? 'person.reactivated' : 'person.deactivated', form, updated);
      return this.view(form, updated, audience);
    }, IS_RESPONSE);
  }
}
