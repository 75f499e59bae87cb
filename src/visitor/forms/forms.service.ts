import { Injectable } from '@nestjs/common';
import type { Tenant } from '../platform/tenant';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { Clock } from '../../common/clock';
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
  ) {}

  async current(tenant: Tenant, kind: 'visit' | 'person', m?: EntityManager): Promise<Form> {
    const row = await this.repo.latest(tenant, kind, m);
    return row ? { version: row.version, schema: row.schema } : EMPTY_FORM;
  }

  /** Saves a new version (admins). A schema that does not compile is `validation_failed` at body.schema. */
  async publish(tenant: Tenant, kind: 'visit' | 'person', schema: FormSchema): Promise<Form> {
    const problems = this.validator.schemaProblems(schema);
    if (problems.length)
      throw ApiError.validation(problems.map((message) => ({ location: 'body.schema', message })));
    const version = (await this.current(tenant, kind)).version + 1;
    await this.repo.save({ ...tenant, kind, version, schema, createdAt: this.clock.now() });
    return { version, schema };
  }

  /** Throws `validation_failed` at body.custom_fields.<key> for every answer that does not fit the form. */
  check(tenant: Tenant, form: Form, kind: string, answers: Record<string, unknown>): void {
    const errors = this.validator.validate(
      form,
      answers,
      `${tenant.organisationId}:${tenant.livemode}:${kind}`,
    );
    if (errors.length) throw ApiError.validation(errors);
  }

  protectedOmitted(form: Form, answers: Record<string, unknown>): Record<string, unknown> {
    return withoutProtectedAnswers(form, answers);
  }
}
