import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/**
 * Whether an object passes every class-validator rule of its class, judged without class-validator's executor:
 * the rules of each class are read from its metadata once (`compile`), so a request does not regroup them, nor
 * build an error record per property, as `validate` does on every call. It only ever answers "passes for sure":
 * false means "not known here" and the caller runs class-validator, which then writes the errors (so the errors,
 * and what is accepted, are class-validator's own). It follows the options of the validation pipe
 * (`ApiValidationPipe`: whitelist with forbidNonWhitelisted, unknown values forbidden, no groups, synchronous
 * rules); a class with a rule it does not know (a promise rule, an async constraint) is never judged here.
 */
export function passesForSure(object: object): boolean {
  const check = checkOf(object.constructor, undefined);
  if (!check) return false;
  try {
    return check(object);
  } catch {
    return false; // class-validator meets the same failure and reports it its way
  }
}

type Check = (object: object) => boolean;

interface Rule {
  meta: ValidationMetadata;
  constraints: ConstraintMetadata[];
}

interface Property {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  defined: Rule[];
  custom: Rule[];
  /** Schema names of the nested rules (the class that declares them, as class-validator passes it on). */
  nested: string[];
}

/** Checks by class and the schema name class-validator looks the class up with (a nested class: its parent's name). */
const compiled = new Map<unknown, Map<string | undefined, Check | null>>();

function checkOf(ctor: unknown, schema: string | undefined): Check | null {
  if (typeof ctor !== 'function') return null;
  let bySchema = compiled.get(ctor);
  if (!bySchema) compiled.set(ctor, (bySchema = new Map()));
  let check = bySchema.get(schema);
  if (check === undefined) {
    check = compile(ctor as ClassOf, schema);
    bySchema.set(schema, check);
  }
  return check;
}

/** A class, as class-validator's metadata storage takes it. */
type ClassOf = Parameters<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[0];

function compile(ctor: ClassOf, schema: string | undefined): Check | null {
  const storage = getMetadataStorage();
  // As ValidationExecutor.execute asks (no groups, `always` off, groups not strict).
  const metas = storage.getTargetValidationMetadatas(ctor, schema as string, false, false, undefined);
  if (metas.length === 0) return null; // an unknown value: class-validator refuses it
  const properties: Property[] = [];
  for (const [name, list] of Object.entries(storage.groupByPropertyName(metas))) {
    const p: Property = { name, conditions: [], defined: [], custom: [], nested: [] };
    for (const meta of list) {
      if (meta.type === ValidationTypes.WHITELIST) continue;
      if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION)
        p.conditions.push(meta.constraints[0] as Property['conditions'][number]);
      else if (meta.type === ValidationTypes.NESTED_VALIDATION)
        p.nested.push(typeof meta.target === 'string' ? meta.target : meta.target.name);
      else if (meta.type === ValidationTypes.IS_DEFINED || meta.type === ValidationTypes.CUSTOM_VALIDATION) {
        const constraints = storage.getTargetValidatorConstraints(meta.constraintCls);
        if (constraints.some((c) => c.async)) return null;
        (meta.type === ValidationTypes.IS_DEFINED ? p.defined : p.custom).push({ meta, constraints });
      } else return null;
    }
    properties.push(p);
  }
  const allowed = new Set(properties.map((p) => p.name));
  return (object) => {
    for (const key of Object.keys(object)) if (!allowed.has(key)) return false;
    for (const p of properties) {
      const value = (object as Record<string, unknown>)[p.name];
      if (isThenable(value)) return false;
      let applies = true;
      for (const condition of p.conditions) applies = condition(object, value) && applies;
      if (!applies) continue;
      for (const rule of p.defined) if (!holds(rule, object, value)) return false;
      for (const rule of p.custom) if (!holds(rule, object, value)) return false;
      if (value === undefined) continue;
      for (const nestedSchema of p.nested) {
        if (Array.isArray(value) || value instanceof Set || value instanceof Map) return false;
        if (!(value instanceof Object)) return false;
        const nested = checkOf(value.constructor, nestedSchema);
        if (!nested || !nested(value)) return false;
      }
    }
    return true;
  };
}

const isThenable = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';

/** One rule on one value, as ValidationExecutor.customValidations applies it; a promise is "not known here". */
function holds({ meta, constraints }: Rule, object: object, value: unknown): boolean {
  if (meta.validateIf && !meta.validateIf(object, value)) return true;
  const args = {
    targetName: object.constructor ? object.constructor.name : undefined,
    property: meta.propertyName,
    object,
    value,
    constraints: meta.constraints,
  };
  for (const c of constraints) {
    const validator = c.instance as { validate(v: unknown, a: typeof args): unknown };
    if (!meta.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) {
      const ok = validator.validate(value, args);
      if (!ok || isThenable(ok)) return false;
    } else {
      if (!Array.isArray(value)) return false;
      for (const item of value) {
        const ok = validator.validate(item, args);
        if (!ok || isThenable(ok)) return false;
      }
    }
  }
  return true;
}
