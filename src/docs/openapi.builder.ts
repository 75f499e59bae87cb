import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Config } from '../config/config';
import { PREFIX } from '../common/http/surface';
import { ERROR_CODES, PUBLIC_CODES, visitorCode } from '../common/errors/error-codes';
import type { OpenApiDocument } from './openapi.registry';
import { problemResponses } from './problem-responses';
import { exampleOf, mergeExample } from './schema-example';

type Json = Record<string, unknown>;

const PUBLIC_ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['ok', 'error'],
  properties: {
    ok: { type: 'boolean', const: false },
    error: {
      type: 'object',
      required: ['code', 'message', 'ref'],
      properties: {
        code: { type: 'string', enum: [...PUBLIC_CODES] },
        message: { type: 'string' },
        ref: { type: 'string', description: 'Reference to quote to support', example: 'ERR-7KQ2-M9XD-4TBA' },
      },
    },
  },
};

const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'instance', 'code', 'request_id', 'errors'],
  properties: {
    type: { type: 'string', format: 'uri', description: '`{docs_url}/errors#<code>`' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: {
      type: 'string',
      description: 'The request path (its first 512 characters and …, when longer)',
    },
    code: { type: 'string', enum: [...new Set(ERROR_CODES.map(visitorCode))] },
    request_id: { type: 'string', pattern: '^req_' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['location', 'message'],
        properties: {
          location: {
            type: 'string',
            description: '`body.<path>`, `query.<name>`, `path.<name>` or `header.<name>`',
          },
          message: { type: 'string' },
        },
      },
    },
  },
};

/** What the visitor surface hands the builder about itself (docs/ imports no surface). */
export interface VisitorDocumentation {
  /** Each OAuth scope in plain words (the OAuth scheme's `scopes`). */
  scopes: Record<string, string>;
  /** The `Idempotency-Key` header parameter every credentialed POST takes (IdempotencyInterceptor). */
  idempotencyKey: Record<string, unknown>;
}

/** Builds one document from the code and splits it into the two published contracts. */
export function buildOpenApiDocuments(
  app: INestApplication,
  config: Config,
  visitor: VisitorDocumentation,
): { public: OpenApiDocument; visitor: OpenApiDocument } {
  const all = toOpenApi31(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder().setOpenAPIVersion('3.1.0').setTitle('all').setVersion('0').build(),
    ),
  ) as OpenApiDocument;
  const publicDoc = split(all, PREFIX.public, {
    info: {
      title: 'Public content API',
      version: '1.0.0',
      description:
        'Read-only public content: campaigns, petitions, events, marketplace, jobs, surveys, durbars, blog, profiles and statistics. Every endpoint is GET; `x-api-key` is optional.',
    },
    servers: [{ url: `${config.baseUrl}${PREFIX.public}` }],
    securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    security: [{}, { ApiKey: [] }],
    errorName: 'Error',
    errorSchema: PUBLIC_ERROR_SCHEMA,
    errorMediaType: 'application/json',
    // The statuses a public call can meet, each with the envelope: 400 (every route refuses invalid and unknown
    // query parameters), 401 for a bad key, 404 where a path parameter names something, 429.
    errorStatuses: (path, op) => {
      const params = (op.parameters as { in: string }[] | undefined) ?? [];
      return ['400', '401', ...(params.some((x) => x.in === 'path') ? ['404'] : []), '429'];
    },
  });
  const visitorDoc = split(all, PREFIX.visitor, {
    info: {
      title: 'Visitor-management API',
      version: '1.0.0-preview',
      description:
        "The REST API of an organisation's front door. Errors are RFC 9457 problem details; see the errors page.",
    },
    servers: [{ url: `${config.baseUrl}${PREFIX.visitor}` }],
    // `bearer` is the name @ApiBearerAuth() gives the scheme on each operation.
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'API key (`svc_sk_…`, `svc_pk_…`) or OAuth access token (`svc_at_…`)',
      },
      oauth2: {
        type: 'oauth2',
        description:
          'Apps other organisations connect: authorization code with PKCE (S256). The access token is sent as `Authorization: Bearer`; it acts for the person who connected the app, limited by their role.',
        flows: {
          authorizationCode: {
            authorizationUrl: `${config.appUrl}/oauth/authorize`,
            tokenUrl: `${config.authUrl}/oauth/token`,
            refreshUrl: `${config.authUrl}/oauth/token`,
            scopes: visitor.scopes,
          },
        },
      },
    },
    security: [{ bearer: [] }, { oauth2: [] }],
    // Each operation: an API key, or an OAuth token holding the operation's scope.
    operationSecurity: (op) =>
      typeof op['x-required-scope'] === 'string'
        ? [{ bearer: [] }, { oauth2: [op['x-required-scope']] }]
        : undefined,
    // IdempotencyInterceptor covers every POST that takes a credential (all but the document itself). The example
    // is a real UUID, so the reference's request samples send one.
    operationParameters: (method, op) =>
      method === 'post' && typeof op['x-required-scope'] === 'string'
        ? [{ ...visitor.idempotencyKey, example: IDEMPOTENCY_KEY_EXAMPLE }]
        : [],
    errorName: 'Problem',
    errorSchema: PROBLEM_SCHEMA,
    errorMediaType: 'application/problem+json',
    // Each error status the operation can answer, its codes and an example of each; no `default`: an answer
    // whose status or code is not listed breaks the contract (test/support/openapi-contract.ts).
    errorResponses: (path, method, op, shared) =>
      problemResponses(method, path, op, {
        docsUrl: config.docsUrl,
        problemRef: '#/components/schemas/Problem',
        shared,
      }),
  });
  return { public: withPublicHttpHeaders(publicDoc), visitor: visitorDoc };
}

interface SplitOptions {
  info: Json;
  servers: Json[];
  securitySchemes: Json;
  security: Json[];
  errorName: string;
  errorSchema: Json;
  errorMediaType: string;
  /** The security requirements of an operation, when they differ from what its decorators say. */
  operationSecurity?: (op: Json) => Json[] | undefined;
  /** Parameters the surface's own mechanisms add to an operation, after those its decorators declare. */
  operationParameters?: (method: string, op: Json) => Json[];
  /** Error statuses documented explicitly on an operation (beside `default`). */
  errorStatuses?: (path: string, op: Json) => string[];
  /** Every error response of an operation, instead of `errorStatuses` and `default`. */
  errorResponses?: (
    path: string,
    method: string,
    op: Json,
    shared: Record<string, Json>,
  ) => Record<string, Json>;
}

/** The sample `Idempotency-Key` of the reference's request samples (any UUID v4 works). */
export const IDEMPOTENCY_KEY_EXAMPLE = '7f4c2a9e-5b1d-4e8a-9c3f-2d6b8e0a1f47';

/** Extensions the surfaces' decorators hand the builder, read here and left out of the documents. */
const BUILDER_EXTENSIONS = ['x-error-codes', 'x-when-plan-lapsed', 'x-example', 'x-no-credential'];

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400':
    'VALIDATION_FAILED: a query parameter is invalid or not a parameter of this endpoint; the message names it',
  '401': 'UNAUTHORIZED: the x-api-key header holds an unknown or revoked key',
  '404': 'NOT_FOUND: unknown, not public, or not in a returnable state',
  '429': 'RATE_LIMITED: the minute allowance is used; see Retry-After',
};

function split(all: OpenApiDocument, prefix: string, o: SplitOptions): OpenApiDocument {
  const paths: Record<string, Record<string, Json>> = {};
  const sharedResponses: Record<string, Json> = {};
  for (const [path, item] of Object.entries(all.paths)) {
    if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    const ops: Record<string, Json> = {};
    for (const [method, declared] of Object.entries(item)) {
      const op = Object.fromEntries(
        Object.entries(declared).filter(([k]) => !BUILDER_EXTENSIONS.includes(k)),
      );
      const responses = withExample(
        { ...((op.responses as Json) ?? {}) },
        declared['x-example'] as Json | undefined,
        all.components?.schemas ?? {},
      );
      const errorResponse = (description: string) => ({
        description,
        content: { [o.errorMediaType]: { schema: { $ref: `#/components/schemas/${o.errorName}` } } },
      });
      const rel = path.slice(prefix.length) || '/';
      if (o.errorResponses)
        Object.assign(responses, o.errorResponses(rel, method, declared, sharedResponses));
      else {
        for (const status of o.errorStatuses?.(path, op) ?? [])
          responses[status] ??= errorResponse(ERROR_DESCRIPTIONS[status] ?? 'Error');
        responses.default = errorResponse('Error');
      }
      const security = path === `${prefix}/openapi.json` ? [] : o.operationSecurity?.(op);
      const added = o.operationParameters?.(method, op) ?? [];
      const parameters = added.length ? { parameters: [...((op.parameters as Json[]) ?? []), ...added] } : {};
      ops[method] = { ...op, ...parameters, responses, ...(security ? { security } : {}) };
    }
    paths[path.slice(prefix.length) || '/'] = ops;
  }
  const schemas = { ...(all.components?.schemas ?? {}), [o.errorName]: o.errorSchema };
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: o.info,
    servers: o.servers,
    paths,
    components: { schemas: {}, securitySchemes: o.securitySchemes },
    security: o.security,
  };
  if (Object.keys(sharedResponses).length)
    doc.components!.responses = Object.fromEntries(
      Object.entries(sharedResponses).sort(([a], [b]) => a.localeCompare(b)),
    );
  doc.components!.schemas = reachableSchemas([paths, sharedResponses], schemas);
  return doc;
}

/** The 2xx JSON responses with the example their schema gives, changed where the operation says (`x-example`). */
function withExample(responses: Json, shows: Json | undefined, schemas: Record<string, Json>): Json {
  if (!shows) return responses;
  for (const [status, r] of Object.entries(responses as Record<string, Json>)) {
    const media = (r.content as Record<string, Json> | undefined)?.['application/json'];
    if (!/^2\d\d$/.test(status) || !media?.schema) continue;
    const example = mergeExample(exampleOf(media.schema, schemas), shows);
    responses[status] = {
      ...r,
      content: { ...(r.content as Json), 'application/json': { ...media, example } },
    };
  }
  return responses;
}

function reachableSchemas(root: unknown, schemas: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        const name = v.slice('#/components/schemas/'.length);
        if (!(name in out) && schemas[name]) {
          out[name] = schemas[name];
          visit(schemas[name]);
        }
      } else visit(v);
    }
  };
  visit(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * OpenAPI 3.0's `nullable: true` as OpenAPI 3.1 / JSON Schema 2020-12, which ignores `nullable`: a `type` gains
 * `'null'` (and an `enum` gains `null`); a `$ref` or combinator becomes `anyOf: [<it>, {type: 'null'}]`.
 * @nestjs/swagger emits unions itself in 3.1 mode for decorated properties, but raw `schema` objects pass
 * through untouched, so both documents go through this once.
 */
export function toOpenApi31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi31);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = toOpenApi31(v);
  if (!('nullable' in out)) return out;
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...out.type, 'null'];
  else {
    const { description, title, example, default: dflt, ...schema } = out;
    const annotations = Object.entries({ description, title, example, default: dflt }).filter(
      ([, v]) => v !== undefined,
    );
    return { ...Object.fromEntries(annotations), anyOf: [schema, { type: 'null' }] };
  }
  return out;
}

const header = (description: string, schema: Json = { type: 'integer', minimum: 0 }, required = true) => ({
  description,
  required,
  schema,
});
/** Not `required`: a request refused before it is counted (a malformed query string) has none. */
const rateHeader = (description: string) =>
  header(
    `${description}. While the shared counter store (Redis) is unreachable, each server process counts on its own`,
    undefined,
    false,
  );
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Response headers of /public/v1 (see content/platform/public-pipeline.ts). */
const PUBLIC_HEADERS: Record<string, Json> = {
  'RateLimit-Limit': rateHeader('Requests allowed per minute: 30 per client IP without a key, 600 per key'),
  'RateLimit-Remaining': rateHeader('Requests left in the current minute'),
  'RateLimit-Reset': rateHeader('Seconds until the current minute window ends'),
  'Retry-After': header('Seconds to wait before the next request is accepted'),
  ETag: header('Strong validator of the body (SHA-256); send it back in `If-None-Match`', {
    type: 'string',
    pattern: '^"[A-Za-z0-9_-]+"$',
  }),
  'Cache-Control': header('`public, max-age=60` without a key, `private, max-age=60` with one', {
    type: 'string',
  }),
  'Svc-Request-Id': header('Identifier of this request (`req_…`), to quote to support', {
    type: 'string',
    pattern: '^req_',
  }),
};
const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'An ETag from an earlier answer; while it still matches, the answer is 304 without a body',
  schema: { type: 'string' },
};
const RATE = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
/** Headers each status carries. A 401 is answered before the key's allowance is known, so without RateLimit-*. */
const HEADERS_BY_STATUS: Record<string, string[]> = {
  '200': [...RATE, 'ETag', 'Cache-Control', 'Svc-Request-Id'],
  '304': [...RATE, 'ETag', 'Cache-Control', 'Svc-Request-Id'],
  '400': [...RATE, 'Svc-Request-Id'],
  '404': [...RATE, 'Svc-Request-Id'],
  '429': [...RATE, 'Retry-After', 'Svc-Request-Id'],
  '401': ['Svc-Request-Id'],
  default: ['Svc-Request-Id'],
};

/** Documents the HTTP caching, rate-limit and request-id headers on every operation, and the 304 answer. */
function withPublicHttpHeaders(doc: OpenApiDocument): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    paths[path] = {};
    for (const [method, op] of Object.entries(item)) {
      const responses: Record<string, Json> = {
        ...(op.responses as Record<string, Json>),
        '304': {
          description: 'Not Modified: `If-None-Match` holds the current ETag; no body',
        },
      };
      for (const [status, response] of Object.entries(responses)) {
        const names = HEADERS_BY_STATUS[status] ?? HEADERS_BY_STATUS.default;
        responses[status] = {
          ...response,
          headers: Object.fromEntries(names.map((n) => [n, ref(n)])),
        };
      }
      paths[path][method] = {
        ...op,
        // inline, not a $ref, so the HTML reference (docs.render.ts) lists it like any other parameter
        parameters: [...((op.parameters as Json[]) ?? []), IF_NONE_MATCH],
        responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
      };
    }
  }
  return {
    ...doc,
    paths,
    components: {
      ...doc.components,
      headers: PUBLIC_HEADERS,
    },
  };
}
