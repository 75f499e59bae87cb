import { Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
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
export const VISIT_TYPE_KEY = /^[a-z][a-z0-9_]{0,39}$/;

/** Visit types of an organisation: the six built-in keys (on by default) plus its own keys. */
@Injectable()
export class VisitTypesService {
  constructor(
    private readonly repo: VisitTypesRepository,
    private readonly forms: FormsService,
    private readonly clock: Clock,
  ) {}

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
  async assertUsable(tenant: Tenant, key: string, opts: { publishable?: boolean } = {}): Promise<void> {
    const errors = typeProblems(key, await this.repo.one(tenant, key), opts.publishable ?? false);
    if (errors.length) throw ApiError.validation(errors);
  }

  /** Admins: create or change a type (display name, on/off, pre-registration). */
  async save(
    tenant: Tenant,
    key: string,
    input: { name?: string; enabled?: boolean; pre_registration?: boolean },
  ): Promise<VisitTypeResponse> {
    if (!VISIT_TYPE_KEY.test(key)) {
      throw ApiError.validation([
        {
          location: 'path.key',
          message:
            'must be lowercase letters, digits and underscores, start with a letter, at most 40 characters',
        },
      ]);
    }
    const current = (await this.list(tenant)).find((t) => t.key === key);
    const now = this.clock.now();
    await this.repo.upsert({
      ...tenant,
      key,
      name: input.name ?? current?.name ?? key,
      enabled: input.enabled ?? current?.enabled ?? true,
      preRegistration: input.pre_registration ?? current?.pre_registration ?? false,
      createdAt: now,
      updatedAt: now,
    });
    return this.get(tenant, key);
  }
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
