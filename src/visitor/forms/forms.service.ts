import { Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import type { EntityManager } from 'typeorm';
import { ApiError, FieldError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
import { Transactions } from '../../database/unit-of-work';
import { CustomFieldsValidator, Form, FormSchema, withoutProtectedAnswers } from './custom-fields.validator';
import { FormsRepository } from './forms.repository';

export const EMPTY_FORM: Form = { version: 0, schema: { type: 'object', properties: {}, 'x-svc-order': [] } };

/** Custom-field forms of an organisation: the current version of each kind, validation, protected answers. */
@Injectable()
export class FormsService {
  private readonly validator = new CustomFieldsValidator();

  constructor(
    private readonly repo: FormsRepository,
    private readonly clock: Clock,
    private readonly tx: Transactions,
  ) {}

  /** The current visit and person forms (GET /v1/forms). */
  async both(tenant: Tenant): Promise<{ visit: Form; person: Form }> {
    const [visit, person] = await Promise.all([
      this.current(tenant, 'visit'),
      this.current(tenant, 'person'),
    ]);
    return { visit, person };
  }

  async current(tenant: Tenant, kind: 'visit' | 'person', m?: EntityManager): Promise<Form> {
    const row = await this.repo.latest(tenant, kind, m);
    return row ? { version: row.version, schema: row.schema } : EMPTY_FORM;
  }

  /** Saves a new version (admins). A schema that does not compile is `validation_failed` at body.schema. */
  async publish(tenant: Tenant, kind: 'visit' | 'person', schema: FormSchema): Promise<Form> {
    return this.tx.run((uow) => this.publishIn(uow.manager, tenant, kind, schema));
  }

  /** Admins in the console: a new version in live mode and in its test copy, in one transaction. */
  async publishInBothModes(
    organisationId: string,
    kind: 'visit' | 'person',
    schema: FormSchema,
  ): Promise<Form> {
    return this.tx.run(async (uow) => {
      await this.publishIn(uow.manager, { organisationId, livemode: false }, kind, schema);
      return this.publishIn(uow.manager, { organisationId, livemode: true }, kind, schema);
    });
  }

  private async publishIn(
    m: EntityManager,
    tenant: Tenant,
    kind: 'visit' | 'person',
    schema: FormSchema,
  ): Promise<Form> {
    const problems = this.validator.schemaProblems(schema);
    if (problems.length)
      throw ApiError.validation(problems.map((message) => ({ location: 'body.schema', message })));
    const version = (await this.current(tenant, kind, m)).version + 1;
    await this.repo.save(m, { ...tenant, kind, version, schema, createdAt: this.clock.now() });
    return { version, schema };
  }

  /**
   * Every problem of a set of answers, each at body.custom_fields.<key>: the form (Ajv, `x-svc-show-if`), the
   * questions asked only at other sites (when `siteId` is given), and Person answers (`x-svc-type: person`)
   * naming no person of the tenant. `existingPeople` looks ids up (in the caller's transaction, if any).
   */
  async answerProblems(
    tenant: Tenant,
    form: Form,
    kind: string,
    answers: Record<string, unknown>,
    o: { siteId?: string; existingPeople: (ids: string[]) => Promise<Set<string>> },
  ): Promise<FieldError[]> {
    const errors = this.validator.validate(
      form,
      answers,
      `${tenant.organisationId}:${tenant.livemode}:${kind}`,
    );
    const people: { key: string; id: string }[] = [];
    for (const [key, def] of Object.entries(form.schema.properties)) {
      if (!(key in answers)) continue;
      const sites = def['x-svc-sites'];
      if (o.siteId !== undefined && sites && !sites.includes(o.siteId))
        errors.push({
          location: `body.custom_fields.${key}`,
          message: `is asked only at sites ${sites.join(', ')}`,
        });
      if (def['x-svc-type'] === 'person' && typeof answers[key] === 'string')
        people.push({ key, id: answers[key] as string });
    }
    if (people.length) {
      const found = await o.existingPeople(people.map((p) => p.id));
      for (const p of people)
        if (!found.has(p.id))
          errors.push({ location: `body.custom_fields.${p.key}`, message: `no person ${p.id}` });
    }
    return errors;
  }

  protectedOmitted(form: Form, answers: Record<string, unknown>): Record<string, unknown> {
    return withoutProtectedAnswers(form, answers);
  }

  /**
   * The answers an integration sends in place of `current`: answers it cannot see (sensitive or masked, omitted
   * from what it reads) are kept unless it gives them anew, so replacing the answers it sees loses nothing.
   */
  keepingHidden(
    form: Form,
    current: Record<string, unknown>,
    given: Record<string, unknown>,
  ): Record<string, unknown> {
    const shown = withoutProtectedAnswers(form, current);
    const hidden = Object.fromEntries(Object.entries(current).filter(([k]) => !(k in shown)));
    return { ...hidden, ...given };
  }
}
