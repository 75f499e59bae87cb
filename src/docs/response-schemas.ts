import type { RouteOptions } from 'fastify';
import { PREFIX, surfaceOf } from '../common/http/surface';
import type { OpenApiDocument } from './openapi.registry';

type Json = Record<string, unknown>;

/**
 * The 2xx JSON response schemas of the served OpenAPI documents, handed to Fastify as each route's
 * `schema.response`: Fastify then serializes the route's answers with fast-json-stringify compiled from them, which
 * writes the documented properties and nothing else. The response classes stay the whitelist even when a mapper
 * slips (adds a field, spreads a row): an undocumented field cannot leave.
 *
 * The schemas are the documents' own, made self-contained for the serializer: `#/components/schemas/…` references
 * inlined, `required` lists left out (they would reorder the properties), and an object documented without properties (free-form, e.g. a form schema or the OpenAPI document
 * itself) given `additionalProperties: true` — JSON Schema allows any property there, while fast-json-stringify
 * would write `{}`. A route whose whole 2xx body is free-form gets no schema (there is nothing to whitelist), nor
 * does a route the documents do not have, or one answering something other than JSON.
 */
export class ResponseSchemas {
  private readonly byRoute = new Map<string, Record<string, Json>>();

  constructor(docs: { public: OpenApiDocument; visitor: OpenApiDocument }) {
    for (const [prefix, doc] of [
      [PREFIX.public, docs.public],
      [PREFIX.visitor, docs.visitor],
    ] as const) {
      const components = (doc.components?.schemas ?? {}) as Record<string, Json>;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          const response: Record<string, Json> = {};
          for (const [status, r] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
            if (!/^2\d\d$/.test(status)) continue;
            const schema = (r.content as Record<string, { schema?: Json }> | undefined)?.['application/json']
              ?.schema;
            if (!schema) continue;
            const own = selfContained(schema, components, []);
            if (!(own.additionalProperties === true && own.properties === undefined)) response[status] = own;
          }
          if (Object.keys(response).length) this.byRoute.set(key(method, prefix + path), response);
        }
      }
    }
  }

  /** The 2xx schema of a route (`GET`, `/v1/visits/:visit_id`), for a caller that writes its answers elsewhere (src/mcp). */
  schemaOf(method: string, url: string): Record<string, unknown> | null {
    const response = this.byRoute.get(key(method, url));
    return response ? (Object.values(response)[0] ?? null) : null;
  }

  /** Sets `schema.response` on a /public/v1 or /v1 route being registered, when the documents have one for it. */
  attach(route: RouteOptions): void {
    const surface = surfaceOf(route.url);
    if (surface !== 'public' && surface !== 'visitor') return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // A HEAD route runs its GET's handler, so it has the GET's body (emptied before it is sent).
    const response = this.byRoute.get(key(methods[0] === 'HEAD' ? 'GET' : methods[0], route.url));
    if (!response || methods.length !== 1) return;
    route.schema = { ...route.schema, response: { ...response } };
  }
}

/** `GET /public/v1/campaigns/{slug}` from an OpenAPI method and path or a Fastify method and route. */
const key = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')}`;

/** An object schema with no properties of its own: anything may be in it. */
const freeForm = (s: Json) =>
  (s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'))) &&
  s.properties === undefined &&
  s.additionalProperties === undefined &&
  s.patternProperties === undefined &&
  s.anyOf === undefined &&
  s.oneOf === undefined &&
  s.allOf === undefined;

function selfContained(node: unknown, components: Record<string, Json>, seen: string[]): Json {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (n === null || typeof n !== 'object') return n;
    return selfContained(n, components, seen);
  };
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (seen.includes(name))
      throw new Error(`Response schema ${name} refers to itself: it cannot be inlined`);
    const target = components[name];
    if (!target) throw new Error(`Response schema ${name} is referenced but not in the document`);
    const { $ref: _ref, ...siblings } = node as Json;
    return { ...selfContained(target, components, [...seen, name]), ...(walk(siblings) as Json) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // fast-json-stringify writes required properties first and throws on a missing one; without `required` it
    // writes them in the document's order and skips an absent one, as JSON.stringify does.
    if (k === 'required' && Array.isArray(v)) continue;
    out[k] = walk(v);
  }
  if (freeForm(out)) out.additionalProperties = true;
  return out;
}
