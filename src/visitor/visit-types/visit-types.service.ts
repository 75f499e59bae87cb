import { Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import { ApiError, FieldError } from '../../common/errors/api-error';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { Transactions, UnitOfWork } from '../../database/unit-of-work';
import { CursorCodecProvider } from '../platform/cursor-codec.provider';
import type { ListQuery, Page } from '../platform/pagination';
import { FormsService } from '../forms/forms.service';
import { publicForm } from '../forms/custom-fields.validator';
import { VisitTypesRepository } from './visit-types.repository';
import { VisitTypeResponse } from './dto/visit-type.response';

export const BUILT_IN_TYPES: Record<string, string> = {
  meeting: 'Meeting',
  interview: 'Interview',
  delivery: 'Delivery',
  contractor: 'Contractor',
  event: 'Event',
  other: 'Other',
};
const BUILT_IN_ORDER = Object.keys(BUILT_IN_TYPES);
const orderOf = (t: VisitTypeResponse): [number, string | number] =>
  t.built_in ? [0, BUILT_IN_ORDER.indexOf(t.key)] : [1, t.key];

export const VISIT_TYPE_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/**
 * Whether any visit of the organisation, in either mode, has the type: the visits domain answers (it sits above
 * visit types, so it registers the answer with `VisitTypesService.answerUsesWith` when its module starts).
 */
export type VisitsOfType = (uow: UnitOfWork, organisationId: string, key: string) => Promise<boolean>;

/** Visit types of an organisation: the six built-in keys (on by default) plus its own keys. */
@Injectable()
export class VisitTypesService {
  private visitsOfType: VisitsOfType | null = null;

  constructor(
    private readonly repo: VisitTypesRepository,
    private readonly forms: FormsService,
    private readonly clock: Clock,
    private readonly tx: Transactions,
    private readonly cursors: CursorCodecProvider,
  ) {}

  /** The visits domain's answer to whether a type is in use (a type some visit has cannot be deleted). */
  answerUsesWith(visitsOfType: VisitsOfType): void {
    this.visitsOfType = visitsOfType;
  }

  /** GET /v1/visit-types: built-in types first, in their published order, then the organisation's own by key. */
  async page(tenant: Tenant, publishable: boolean, q: ListQuery): Promise<Page<VisitTypeResponse>> {
    const types = (await this.list(tenant, { publishable })).sort((a, b) => {
      const [x, y] = [orderOf(a), orderOf(b)];
      return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
    });
    return this.cursors.codec.memoryPage('visit_types', tenant, q, types, orderOf, (t) => t);
  }

  async list(tenant: Tenant, opts: { publishable?: boolean } = {}): Promise<VisitTypeResponse[]> {
    const rows = new Map((await this.repo.all(tenant)).map((r) => [r.key, r]));
    const keys = [...new Set([...Object.keys(BUILT_IN_TYPES), ...rows.keys()])];
    const form = await this.forms.current(tenant, 'visit');
    const types = keys.map((key) => {
      const row = rows.get(key);
      const preRegistration = row?.preRegistration ?? false;
      return {
        key,
        name: row?.name ?? BUILT_IN_TYPES[key],
        enabled: row?.enabled ?? true,
        built_in: key in BUILT_IN_TYPES,
        pre_registration: preRegistration,
        public_form: preRegistration ? publicForm(form) : null,
      };
    });
    return opts.publishable ? types.filter((t) => t.enabled && t.pre_registration) : types;
  }

  /** One type; with a publishable key only types that are on and open for pre-registration exist. */
  async get(tenant: Tenant, key: string, opts: { publishable?: boolean } = {}): Promise<VisitTypeResponse> {
    const found = (await this.list(tenant, opts)).find((t) => t.key === key);
    if (!found) throw ApiError.notFound(`Visit type ${key}`);
    return found;
  }

  /** The type a visit may use: known and on (and open for pre-registration with a publishable key). */
  /** Whether the tenant's type is on and takes pre-registration, null when the key is unknown. */
  find(tenant: Tenant, key: string): ReturnType<VisitTypesRepository['one']> {
    return this.repo.one(tenant, key);
  }

  async assertUsable(tenant: Tenant, key: string, opts: { publishable?: boolean } = {}): Promise<void> {
    const errors = typeProblems(key, await this.repo.one(tenant, key), opts.publishable ?? false);
    if (errors.length) throw ApiError.validation(errors);
  }

  /** Admins: create or change a type (display name, on/off, pre-registration) in one mode. */
  async save(tenant: Tenant, key: string, input: VisitTypeInput): Promise<VisitTypeResponse> {
    await this.tx.run((uow) => this.upsertIn(uow.manager, tenant, key, input));
    return this.get(tenant, key);
  }

  /**
   * Admins in the console: the same change to the live type and its test copy, in one transaction (the sandbox
   * stays a copy). Returns the type as `mode` shows it.
   */
  async saveInBothModes(
    organisationId: string,
    key: string,
    input: VisitTypeInput,
    mode: 'live' | 'test' = 'live',
  ): Promise<VisitTypeResponse> {
    await this.tx.run(async (uow) => {
      for (const livemode of [true, false])
        await this.upsertIn(uow.manager, { organisationId, livemode }, key, input);
    });
    return this.get({ organisationId, livemode: mode === 'live' }, key);
  }

  /**
   * Admins: deletes an organisation-defined type in both modes. Built-in types are turned off instead
   * (`invalid_state`); a type some visit has (either mode) too, so those visits keep a known type (`conflict`).
   */
  async remove(organisationId: string, key: string): Promise<void> {
    assertKey(key);
    if (key in BUILT_IN_TYPES)
      throw new ApiError(
        'invalid_state',
        `Visit type ${key} is built in; turn it off (enabled: false) instead.`,
      );
    await this.tx.run(async (uow) => {
      const locked = await Promise.all(
        [true, false].map((livemode) => this.repo.lockOne(uow.manager, { organisationId, livemode }, key)),
      );
      if (!locked.some(Boolean)) throw ApiError.notFound(`Visit type ${key}`);
      if (!this.visitsOfType) throw new Error('visit types: the visits domain has not registered its answer');
      if (await this.visitsOfType(uow, organisationId, key))
        throw new ApiError(
          'conflict',
          `Visits have the type ${key}; turn it off (enabled: false) instead of deleting it.`,
        );
      await this.repo.deleteEverywhere(uow.manager, organisationId, key);
    });
  }

  private async upsertIn(
    m: EntityManager,
    tenant: Tenant,
    key: string,
    input: VisitTypeInput,
  ): Promise<void> {
    assertKey(key);
    const current = await this.repo.lockOne(m, tenant, key);
    const now = this.clock.now();
    await this.repo.upsert(m, {
      ...tenant,
      key,
      name: input.name ?? current?.name ?? BUILT_IN_TYPES[key] ?? key,
      enabled: input.enabled ?? current?.enabled ?? true,
      preRegistration: input.pre_registration ?? current?.preRegistration ?? false,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    });
  }
}

export interface VisitTypeInput {
  name?: string;
  enabled?: boolean;
  pre_registration?: boolean;
}

/** A key an organisation may define: `validation_failed` at path.key otherwise. */
function assertKey(key: string): void {
  if (!VISIT_TYPE_KEY.test(key))
    throw ApiError.validation([
      {
        location: 'path.key',
        message:
          'must be lowercase letters, digits and underscores, start with a letter, at most 40 characters',
      },
    ]);
}

/**
 * Why a visit cannot use type `key`, given its row (null: never changed — a built-in type is then on and closed
 * to pre-registration; any other key is unknown). Empty when usable.
 */
export function typeProblems(
  key: string,
  row: { enabled: boolean; preRegistration: boolean } | null,
  publishable: boolean,
): FieldError[] {
  const t = row ?? (key in BUILT_IN_TYPES ? { enabled: true, preRegistration: false } : null);
  const at = (message: string) => [{ location: 'body.type', message }];
  if (!t) return at(`unknown visit type "${key}"`);
  if (!t.enabled) return at(`visit type "${key}" is turned off`);
  if (publishable && !t.preRegistration) return at(`visit type "${key}" is not open for pre-registration`);
  return [];
}
