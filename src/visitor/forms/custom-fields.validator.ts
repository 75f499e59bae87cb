import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { FieldError } from '../../common/errors/api-error';

/** A per-organisation form: a JSON Schema (draft 2020-12) of custom-field answers with x-svc annotations. */
export interface Form {
  version: number;
  schema: FormSchema;
}

export interface FieldSchema {
  type?: string | string[];
  'x-svc-type'?: string;
  'x-svc-labels'?: Record<string, string>;
  'x-svc-unit'?: string;
  'x-svc-consent-text'?: string;
  /** Asked only when another answer has a value: `{ field, equals }`. */
  'x-svc-show-if'?: { field: string; equals: unknown };
  'x-svc-sites'?: string[];
  /** Visitor-facing (part of the public form used for pre-registration). */
  'x-svc-public'?: boolean;
  /** Stored, but omitted for API keys, connected apps and every event. */
  'x-svc-sensitive'?: boolean;
  'x-svc-masked'?: boolean;
  [k: string]: unknown;
}

export interface FormSchema {
  type: 'object';
  properties: Record<string, FieldSchema>;
  required?: string[];
  allOf?: unknown[];
  'x-svc-order'?: string[];
  additionalProperties?: boolean;
  [k: string]: unknown;
}

const SVC_KEYWORDS = [
  'x-svc-order',
  'x-svc-type',
  'x-svc-labels',
  'x-svc-unit',
  'x-svc-consent-text',
  'x-svc-show-if',
  'x-svc-sites',
  'x-svc-public',
  'x-svc-sensitive',
  'x-svc-masked',
];

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of SVC_KEYWORDS)
    ajv.addKeyword({ keyword, schemaType: ['object', 'array', 'string', 'boolean'] });
  return ajv;
}

function locate(e: ErrorObject): string {
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  const missing =
    e.keyword === 'required'
      ? (e.params as { missingProperty: string }).missingProperty
      : e.keyword === 'additionalProperties'
        ? (e.params as { additionalProperty: string }).additionalProperty
        : '';
  return ['body.custom_fields', path, missing].filter(Boolean).join('.');
}

function messageOf(e: ErrorObject): string {
  if (e.keyword === 'required') return 'is required';
  if (e.keyword === 'additionalProperties') return 'is not a field of this form';
  if (e.keyword === 'enum')
    return `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
  return e.message ?? 'is invalid';
}

/**
 * Validates custom-field answers against a form with a real JSON Schema validator (Ajv), returning one
 * `{location: body.custom_fields.<key>, message}` per problem. Unknown keys are refused; `x-svc-show-if`
 * questions must be left out while their condition does not hold.
 */
export class CustomFieldsValidator {
  private readonly ajv = newAjv();
  private readonly cache = new Map<string, ValidateFunction>();

  /** Problems with the schema itself (for admins saving a form); empty when it compiles. */
  schemaProblems(schema: FormSchema): string[] {
    try {
      newAjv().compile({ ...schema, additionalProperties: false });
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  }

  validate(form: Form, answers: Record<string, unknown>, cacheKey: string): FieldError[] {
    const key = `${cacheKey}@${form.version}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile({ ...form.schema, additionalProperties: false });
      this.cache.set(key, validate);
    }
    const errors: FieldError[] = [];
    if (!validate(answers)) {
      const seen = new Set<string>();
      for (const e of validate.errors ?? []) {
        if (e.keyword === 'if') continue; // the failing `then` branch is reported on its own
        const location = locate(e);
        const message = messageOf(e);
        if (seen.has(`${location}|${message}`)) continue;
        seen.add(`${location}|${message}`);
        errors.push({ location, message });
      }
    }
    for (const [field, def] of Object.entries(form.schema.properties)) {
      const cond = def['x-svc-show-if'];
      if (cond && field in answers && answers[cond.field] !== cond.equals) {
        errors.push({
          location: `body.custom_fields.${field}`,
          message: `is asked only when ${cond.field} is ${JSON.stringify(cond.equals)}`,
        });
      }
    }
    return errors;
  }
}

/** Answers with the sensitive or masked fields removed: what API keys, connected apps and events see. */
export function withoutProtectedAnswers(
  form: Form,
  answers: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(answers)) {
    const def = form.schema.properties[k];
    if (def && (def['x-svc-sensitive'] || def['x-svc-masked'])) continue;
    out[k] = v;
  }
  return out;
}

/**
 * The question keys a schema clause mentions: keys of `properties`, `dependentRequired`, `dependentSchemas`,
 * entries of `required` and `dependentRequired` lists, and `x-svc-show-if` fields, at any depth. A clause
 * that can match keys by pattern (`patternProperties`, `propertyNames`, `additionalProperties`) mentions `*`.
 */
export function fieldsOf(node: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const n of node) fieldsOf(n, into);
    return into;
  }
  if (node === null || typeof node !== 'object') return into;
  const o = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if ((k === 'properties' || k === 'dependentSchemas') && v && typeof v === 'object') {
      for (const [field, sub] of Object.entries(v)) {
        into.add(field);
        fieldsOf(sub, into);
      }
    } else if (k === 'dependentRequired' && v && typeof v === 'object') {
      for (const [field, list] of Object.entries(v)) {
        into.add(field);
        for (const f of Array.isArray(list) ? list : []) into.add(String(f));
      }
    } else if (k === 'required' && Array.isArray(v)) {
      for (const f of v) into.add(String(f));
    } else if (k === 'x-svc-show-if' && v && typeof v === 'object') {
      into.add(String((v as { field?: unknown }).field));
    } else if (k === 'patternProperties' || k === 'propertyNames' || k === 'additionalProperties') {
      into.add('*');
    } else fieldsOf(v, into);
  }
  return into;
}

/**
 * The visitor-facing part of a form (the `public_form` of a visit type open for pre-registration): the
 * questions marked `x-svc-public`, the requirements among them, and the conditional clauses (`allOf` entries,
 * and a top-level `if`/`then`/`else`) that mention only public questions. A clause that mentions a question the
 * visitor is not asked is left out whole (staff answer those later, when the full form applies); so is a public
 * question shown only when a non-public answer holds, since the visitor could never see it.
 */
export function publicForm(form: Form): Form {
  const all = form.schema.properties;
  let keys = Object.keys(all).filter((k) => all[k]['x-svc-public']);
  for (let before = -1; before !== keys.length;) {
    before = keys.length;
    keys = keys.filter((k) => {
      const cond = all[k]['x-svc-show-if'];
      return !cond || keys.includes(cond.field);
    });
  }
  const isPublic = (clause: unknown) => [...fieldsOf(clause)].every((f) => keys.includes(f));
  const properties = Object.fromEntries(keys.map((k) => [k, all[k]]));
  const schema: FormSchema = {
    type: 'object',
    properties,
    required: (form.schema.required ?? []).filter((k) => keys.includes(k)),
    'x-svc-order': (form.schema['x-svc-order'] ?? keys).filter((k) => keys.includes(k)),
  };
  const allOf = (form.schema.allOf ?? []).filter(isPublic);
  if (allOf.length) schema.allOf = allOf;
  const top = { if: form.schema.if, then: form.schema.then, else: form.schema.else };
  if (top.if !== undefined && isPublic(top))
    for (const [k, v] of Object.entries(top)) if (v !== undefined) schema[k] = v;
  return { version: form.version, schema };
}
