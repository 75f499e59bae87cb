import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Config } from '../config/config';
import { PREFIX } from '../common/http/surface';
import { ERROR_CODES, PUBLIC_CODES, visitorCode } from '../common/errors/error-codes';
import type { OpenApiDocument } from './openapi.registry';

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
    instance: { type: 'string', description: 'The request path' },
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

/** Builds one document from the code and splits it into the two published contracts. */
export function buildOpenApiDocuments(
  app: INestApplication,
  config: Config,
): { public: OpenApiDocument; visitor: OpenApiDocument } {
  const all = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().setOpenAPIVersion('3.1.0').setTitle('all').setVersion('0').build(),
  ) as unknown as OpenApiDocument;
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
    // The statuses a public call can meet, each with the envelope (the spec's 400, 404 and 429, and 401 for a
    // bad key): lists take query parameters, details a path parameter.
    errorStatuses: (path, op) => {
      const params = (op.parameters as { in: string }[] | undefined) ?? [];
      return [
        ...(params.some((x) => x.in === 'query') ? ['400'] : []),
        '401',
        ...(params.some((x) => x.in === 'path') ? ['404'] : []),
        '429',
      ];
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
    securitySchemes: {
      Bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'API key (`svc_sk_…`, `svc_pk_…`) or OAuth access token',
      },
    },
    security: [{ Bearer: [] }],
    errorName: 'Problem',
    errorSchema: PROBLEM_SCHEMA,
    errorMediaType: 'application/problem+json',
  });
  return { public: publicDoc, visitor: visitorDoc };
}

interface SplitOptions {
  info: Json;
  servers: Json[];
  securitySchemes: Json;
  security: Json[];
  errorName: string;
  errorSchema: Json;
  errorMediaType: string;
  /** Error statuses documented explicitly on an operation (beside `default`). */
  errorStatuses?: (path: string, op: Json) => string[];
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'VALIDATION_FAILED: a query parameter is invalid; the message names it',
  '401': 'UNAUTHORIZED: the x-api-key header holds an unknown or revoked key',
  '404': 'NOT_FOUND: unknown, not public, or not in a returnable state',
  '429': 'RATE_LIMITED: the minute allowance is used; see Retry-After',
};

function split(all: OpenApiDocument, prefix: string, o: SplitOptions): OpenApiDocument {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [path, item] of Object.entries(all.paths)) {
    if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    const ops: Record<string, Json> = {};
    for (const [method, op] of Object.entries(item)) {
      const responses = { ...((op.responses as Json) ?? {}) };
      const errorResponse = (description: string) => ({
        description,
        content: { [o.errorMediaType]: { schema: { $ref: `#/components/schemas/${o.errorName}` } } },
      });
      for (const status of o.errorStatuses?.(path, op) ?? [])
        responses[status] ??= errorResponse(ERROR_DESCRIPTIONS[status] ?? 'Error');
      responses.default = errorResponse('Error');
      ops[method] = { ...op, responses, ...(path === `${prefix}/openapi.json` ? { security: [] } : {}) };
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
  doc.components!.schemas = reachableSchemas(paths, schemas);
  return doc;
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
