type Json = Record<string, unknown>;

/**
 * The example a JSON schema gives, the way a reference renders one: each property's `example` (or `default`),
 * else the first `enum` value, else a value of its type and format; `$ref`s resolved in `schemas`; a nullable
 * union shows its non-null branch.
 */
export function exampleOf(schema: unknown, schemas: Record<string, Json>, depth = 0): unknown {
  if (schema === null || typeof schema !== 'object' || depth > 12) return null;
  const s = schema as Json;
  if (typeof s.$ref === 'string') return exampleOf(schemas[s.$ref.split('/').pop()!], schemas, depth + 1);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum.find((v) => v !== null) ?? null;
  if (s.const !== undefined) return s.const;
  for (const k of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(s[k])) {
      const branch = (s[k] as Json[]).find((b) => b.type !== 'null');
      return branch ? exampleOf(branch, schemas, depth + 1) : null;
    }
  if (Array.isArray(s.allOf))
    return (s.allOf as Json[]).reduce<unknown>(
      (acc, b) => mergeExample(acc, exampleOf(b, schemas, depth + 1) as Json),
      {},
    );
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Json>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v, schemas, depth + 1)]));
    }
    case 'array':
      return [exampleOf(s.items, schemas, depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'date-time') return '2026-11-26T09:30:00.000Z';
      if (s.format === 'date') return '2026-11-26';
      if (s.format === 'uuid') return '7f4c2a9e-5b1d-4e8a-9c3f-2d6b8e0a1f47';
      if (s.format === 'email') return 'ama@example.com';
      if (s.format === 'uri') return 'https://example.com';
      return 'string';
    default:
      return typeof s.properties === 'object'
        ? exampleOf({ ...s, type: 'object' }, schemas, depth + 1)
        : null;
  }
}

/** `base` with `shows` laid over it, objects merged property by property. */
export function mergeExample(base: unknown, shows: Json): unknown {
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return shows;
  const out: Json = { ...(base as Json) };
  for (const [k, v] of Object.entries(shows))
    out[k] =
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      typeof out[k] === 'object' &&
      out[k] !== null
        ? mergeExample(out[k], v as Json)
        : v;
  return out;
}
