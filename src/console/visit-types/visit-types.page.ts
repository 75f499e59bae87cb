import { Body, Controller, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error';
import { CheckCsrf, CsrfToken } from '../../pages/page.decorator';
import { ForBrowsers } from '../../pages/page-framework';
import { PostedForm } from '../../pages/posted-form';
import type { ConsoleCaller } from '../../visitor/accounts/console-caller';
import { AuditService } from '../../visitor/audit/audit.service';
import type { FieldSchema, Form, FormSchema } from '../../visitor/forms/custom-fields.validator';
import { FormsService } from '../../visitor/forms/forms.service';
import { VisitTypesService } from '../../visitor/visit-types/visit-types.service';
import { ConsoleAuth, ConsoleTenant, ConsoleTenantOf, CurrentAccount } from '../auth/console-auth';
import { consoleRoles } from '../frame/console-nav';
import { ConsolePage } from '../frame/console-page';
import { SaveVisitTypeBody } from '../front-door/dto/front-door.request';
import { labelOf } from '../visits/visit-view';

type FormBody = Record<string, string | undefined>;

/** The kinds of question the page adds: JSON Schema of each. */
const KINDS: Record<string, { words: string; schema: FieldSchema }> = {
  text: { words: 'Text', schema: { type: 'string', maxLength: 500 } },
  yes_no: { words: 'Yes or no', schema: { type: 'boolean' } },
  number: { words: 'Number', schema: { type: 'number' } },
};
const FLAGS = ['x-svc-sensitive', 'x-svc-masked', 'x-svc-public'] as const;
const FIELD_KEY = /^[a-z][a-z0-9_]{0,39}$/;

const kindOf = (def: FieldSchema) =>
  def.type === 'boolean'
    ? 'Yes or no'
    : def.type === 'number' || def.type === 'integer'
      ? 'Number'
      : def['x-svc-type'] === 'person'
        ? 'Person'
        : 'Text';

/** Problems of an ApiError as lines for the page (`field: message`), or null when it is not a refusal of input. */
function problemsOf(e: unknown): string[] | null {
  if (
    !(e instanceof ApiError) ||
    !['validation_failed', 'invalid_state', 'conflict', 'not_found'].includes(e.code)
  )
    return null;
  return e.errors.length
    ? e.errors.map((x) => `${x.location.replace(/^body\./, '')}: ${x.message}`)
    : [e.detail];
}

/**
 * The schema after the page's form: each question's label, required, sensitive, masked and public marks and
 * removal, and one new question (key, label, kind). Everything else of the schema (conditions, other annotations)
 * is kept as it was; the forms service checks the result as it checks `PUT /console/forms/visit`.
 */
export function editedSchema(current: Form, body: FormBody): { schema: FormSchema; errors: string[] } {
  const errors: string[] = [];
  const props: Record<string, FieldSchema> = {};
  const required = new Set(current.schema.required ?? []);
  for (const [key, def] of Object.entries(current.schema.properties)) {
    if (body[`remove.${key}`] === 'on') {
      required.delete(key);
      continue;
    }
    const next: FieldSchema = { ...def };
    const title = (body[`title.${key}`] ?? '').trim();
    if (title.length > 200) errors.push(`${key}: the label has at most 200 characters`);
    if (title) next.title = title;
    else delete next.title;
    for (const flag of FLAGS) {
      const name = `${flag.slice(6)}.${key}`;
      if (body[name] === 'on') next[flag] = true;
      else delete next[flag];
    }
    if (body[`required.${key}`] === 'on') required.add(key);
    else required.delete(key);
    props[key] = next;
  }
  const newKey = (body['new.key'] ?? '').trim();
  if (newKey) {
    const kind = KINDS[body['new.kind'] ?? ''];
    if (!FIELD_KEY.test(newKey))
      errors.push(
        'new question key: lowercase letters, digits and underscores, starting with a letter, at most 40',
      );
    else if (newKey in props) errors.push(`new question key: ${newKey} is already a question`);
    if (!kind) errors.push('new question kind: choose one of the list');
    const title = (body['new.title'] ?? '').trim();
    if (title.length > 200) errors.push('new question label: at most 200 characters');
    if (kind && FIELD_KEY.test(newKey) && !(newKey in props)) {
      props[newKey] = { ...kind.schema, ...(title ? { title } : {}) };
      for (const flag of FLAGS) if (body[`new.${flag.slice(6)}`] === 'on') props[newKey][flag] = true;
      if (body['new.required'] === 'on') required.add(newKey);
    }
  }
  const order = (current.schema['x-svc-order'] ?? Object.keys(current.schema.properties)).filter(
    (k) => k in props,
  );
  for (const k of Object.keys(props)) if (!order.includes(k)) order.push(k);
  const schema: FormSchema = {
    ...current.schema,
    properties: props,
    required: [...required].filter((k) => k in props),
    'x-svc-order': order,
  };
  return { schema, errors };
}

/**
 * Visit types and the visit form (`/console/visit-types`, issue 31 page 8), for Owners and Admins: turn types on
 * and off, open them for pre-registration, add a type; edit the visit form's questions (label, required,
 * sensitive, masked, asked of visitors) and add one. Changes apply to live mode and its test copy at once, through
 * the same services and checks as the JSON endpoints; bad input re-renders the page with each problem; every change
 * is audited.
 */
@ApiExcludeController()
@Controller('console/visit-types')
@ConsoleAuth(...consoleRoles('/console/visit-types'))
export class ConsoleVisitTypesPageController {
  constructor(
    private readonly visitTypes: VisitTypesService,
    private readonly forms: FormsService,
    private readonly audit: AuditService,
  ) {}

  private async view(t: ConsoleTenantOf, csrf: string, extra: Record<string, unknown> = {}) {
    const tenant = { organisationId: t.organisationId, livemode: t.livemode };
    const [types, form] = await Promise.all([
      this.visitTypes.list(tenant),
      this.forms.current(tenant, 'visit'),
    ]);
    const required = new Set(form.schema.required ?? []);
    const order = form.schema['x-svc-order'] ?? Object.keys(form.schema.properties);
    return {
      title: 'Visit types',
      csrf,
      types: types.map((x) => ({
        key: x.key,
        name: x.name,
        enabled: x.enabled,
        builtIn: x.built_in,
        preRegistration: x.pre_registration,
        publicQuestions: x.public_form ? Object.keys(x.public_form.schema.properties as object).length : null,
        action: `/console/visit-types/${x.key}`,
      })),
      formVersion: form.version,
      questions: order
        .filter((k) => k in form.schema.properties)
        .map((k) => {
          const def = form.schema.properties[k];
          return {
            key: k,
            label: def.title === undefined ? '' : labelOf(form, k),
            kind: kindOf(def),
            required: required.has(k),
            sensitive: def['x-svc-sensitive'] === true,
            masked: def['x-svc-masked'] === true,
            public: def['x-svc-public'] === true,
          };
        }),
      kinds: Object.entries(KINDS).map(([value, k]) => ({ value, words: k.words })),
      errors: [] as string[],
      formErrors: [] as string[],
      values: { key: '', name: '' },
      ...extra,
    };
  }

  @Get()
  @ForBrowsers()
  @ConsolePage('console-visit-types')
  show(@ConsoleTenant() t: ConsoleTenantOf, @CsrfToken() csrf: string, @Query('notice') notice?: string) {
    const notices: Record<string, string> = {
      saved: 'Saved in live and test mode.',
      published: 'The visit form is published in live and test mode.',
    };
    return this.view(t, csrf, { notice: notice ? (notices[notice] ?? null) : null });
  }

  /** Adds a type (key and name), or publishes the edited visit form; problems re-render the page. */
  @Post()
  @ConsolePage('console-visit-types')
  @CheckCsrf()
  async change(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @CsrfToken() csrf: string,
    @Body() body: FormBody,
    @Req() req: FastifyRequest,
  ) {
    const actor = { type: 'console_account' as const, id: a.id };
    const requestId = String(req.id);
    if (body.intent === 'form') {
      const tenant = { organisationId: t.organisationId, livemode: t.livemode };
      const { schema, errors } = editedSchema(await this.forms.current(tenant, 'visit'), body);
      if (errors.length)
        return this.view(t, csrf, {
          formErrors: errors,
          error: { message: 'The form was not published.', requestId },
        });
      try {
        const form = await this.forms.publishInBothModes(t.organisationId, 'visit', schema);
        await this.audit.record({
          organisationId: t.organisationId,
          livemode: null,
          action: 'form.published',
          actor,
          target: { type: 'form', id: `visit@${form.version}` },
          request: req,
        });
        return this.view(t, csrf, { notice: 'The visit form is published in live and test mode.' });
      } catch (e) {
        const problems = problemsOf(e);
        if (!problems) throw e;
        return this.view(t, csrf, {
          formErrors: problems,
          error: { message: 'The form was not published.', requestId },
        });
      }
    }
    const values = { key: (body.key ?? '').trim(), name: (body.name ?? '').trim() };
    const dto = plainToInstance(SaveVisitTypeBody, { name: values.name });
    const errors = validateSync(dto).flatMap((x) =>
      Object.values(x.constraints ?? {}).map((m) => `name: ${m}`),
    );
    if (!values.name) errors.push('name: is required');
    if (!values.key) errors.push('key: is required');
    else if (
      (await this.visitTypes.list({ organisationId: t.organisationId, livemode: t.livemode })).some(
        (x) => x.key === values.key,
      )
    )
      errors.push(`key: ${values.key} is already a visit type`);
    try {
      if (errors.length)
        throw ApiError.validation(
          errors.map((m) => ({ location: m.split(':')[0], message: m.slice(m.indexOf(':') + 2) })),
        );
      await this.visitTypes.saveInBothModes(t.organisationId, values.key, {
        name: values.name,
        enabled: true,
      });
      await this.audit.record({
        organisationId: t.organisationId,
        livemode: null,
        action: 'visit_type.saved',
        actor,
        target: { type: 'visit_type', id: values.key },
        data: { name: values.name, enabled: true },
        request: req,
      });
      return this.view(t, csrf, { notice: `Visit type ${values.name} added, turned on.` });
    } catch (e) {
      const problems = problemsOf(e);
      if (!problems) throw e;
      return this.view(t, csrf, {
        errors: problems,
        values,
        error: { message: 'The type was not added.', requestId },
      });
    }
  }

  /** Turns a type on or off, or opens or closes it for pre-registration (both modes). */
  @Post(':key')
  @PostedForm()
  async toggle(
    @CurrentAccount() a: ConsoleCaller,
    @ConsoleTenant() t: ConsoleTenantOf,
    @Param('key') key: string,
    @Body() body: FormBody,
    @Req() req: FastifyRequest,
  ) {
    const input: { enabled?: boolean; pre_registration?: boolean } = {};
    if (body.enabled === 'true' || body.enabled === 'false') input.enabled = body.enabled === 'true';
    if (body.pre_registration === 'true' || body.pre_registration === 'false')
      input.pre_registration = body.pre_registration === 'true';
    if (Object.keys(input).length === 0)
      throw ApiError.validation([
        { location: 'body', message: 'give enabled or pre_registration, true or false' },
      ]);
    const types = await this.visitTypes.list({ organisationId: t.organisationId, livemode: t.livemode });
    if (!types.some((x) => x.key === key)) throw ApiError.notFound(`Visit type ${key}`);
    await this.visitTypes.saveInBothModes(t.organisationId, key, input);
    await this.audit.record({
      organisationId: t.organisationId,
      livemode: null,
      action: 'visit_type.saved',
      actor: { type: 'console_account', id: a.id },
      target: { type: 'visit_type', id: key },
      data: input,
      request: req,
    });
    return { url: '/console/visit-types?notice=saved', statusCode: 303 };
  }
}
