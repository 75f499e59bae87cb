import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Validates real responses against the served OpenAPI 3.1 document as served (no rewriting: a schema that
 * OpenAPI 3.1 tools would misread fails here too), so code and contract cannot drift. Checks the status, the
 * body against its schema (or that no body was sent when none is documented) and every documented header.
 * Usage: `const contract = await Contract.fetch(app, '/v1/openapi.json'); contract.expectValid(res);`
 */
type Json = Record<string, unknown>;
interface DocHeader {
  $ref?: string;
  required?: boolean;
  schema?: Json;
}
interface DocResponse {
  $ref?: string;
  content?: Record<string, { schema?: Json }>;
  headers?: Record<string, DocHeader>;
}
interface Doc {
  servers?: { url: string }[];
  paths: Record<string, Record<string, { responses?: Record<string, DocResponse> }>>;
  components?: Json;
}
interface InjectLike {
  inject(opts: { method: 'GET'; url: string }): Promise<{ statusCode: number; json(): unknown }>;
}
export interface ResponseLike {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json(): unknown;
}

/** The document's own `#/…` references, resolvable from schemas compiled on their own (the document is `doc`). */
function relocate(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relocate);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\//, 'doc#/') : relocate(v);
  return out;
}

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly prefix: string;
  private readonly templates: { template: string; re: RegExp }[];

  constructor(readonly doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: relocate(doc.components ?? {}) } as Json);
    this.prefix = new URL(doc.servers?.[0]?.url ?? 'http://x/').pathname.replace(/\/$/, '');
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  static async fetch(app: InjectLike, url: string): Promise<Contract> {
    const res = await app.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    return new Contract(res.json() as Doc);
  }

  /** Whether the document has an operation for this method and URL (under its server's prefix). */
  documents(method: string, url: string): boolean {
    const path = new URL(url, 'http://x').pathname;
    if (!path.startsWith(`${this.prefix}/`)) return false;
    const rel = path.slice(this.prefix.length);
    const match = this.templates.find((t) => t.re.test(rel));
    return !!match && !!this.doc.paths[match.template][method.toLowerCase()];
  }

  /** Throws with the schema errors when the response does not match its documented schema. */
  expectValid(res: ResponseLike, method: string, url: string): void {
    const path = new URL(url, 'http://x').pathname;
    if (!path.startsWith(this.prefix)) throw new Error(`${path} is outside ${this.prefix}`);
    const rel = path.slice(this.prefix.length) || '/';
    const match = this.templates.find((t) => t.re.test(rel));
    if (!match) throw new Error(`${method} ${rel} is not documented`);
    const op = this.doc.paths[match.template][method.toLowerCase()];
    if (!op) throw new Error(`${method} ${match.template} is not documented`);
    const status = String(res.statusCode);
    // /v1 lists every error status an operation can answer, each limiting `code` to its codes, and has no
    // `default`: an answer whose status (or code, by the schema) the operation does not list fails here.
    const declared = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    if (!declared) throw new Error(`${method} ${match.template} does not document status ${status}`);
    const response = declared.$ref ? this.resolve<DocResponse>(declared.$ref) : declared;
    this.expectHeaders(res, response, `${method} ${match.template} ${status}`);
    const mediaType = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    if (!response.content) {
      if (res.body.length > 0)
        throw new Error(`${method} ${match.template} ${status} documents no body but one was sent`);
      return;
    }
    const media = response.content[mediaType];
    if (!media) throw new Error(`${method} ${match.template} ${status} does not document ${mediaType}`);
    if (!media.schema) return;
    const key = `${method} ${match.template} ${status} ${mediaType}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(relocate(media.schema) as Json);
      this.cache.set(key, validate);
    }
    if (!validate(res.json())) {
      throw new Error(
        `${key} does not match the contract:\n${this.ajv.errorsText(validate.errors, { separator: '\n' })}`,
      );
    }
  }

  /** Every header the response documents as required is present and matches its schema. */
  private expectHeaders(res: ResponseLike, response: DocResponse, where: string): void {
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const h = declared.$ref ? this.resolve<DocHeader>(declared.$ref) : declared;
      const raw = res.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (h.required) throw new Error(`${where} lacks the documented header ${name}`);
        continue;
      }
      if (!h.schema) continue;
      const key = `header ${name} ${JSON.stringify(h.schema)}`;
      let validate = this.cache.get(key);
      if (!validate) {
        validate = this.ajv.compile(relocate(h.schema) as Json);
        this.cache.set(key, validate);
      }
      const text = String(raw);
      const numeric = h.schema.type === 'integer' || h.schema.type === 'number';
      const value = numeric && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
      if (!validate(value))
        throw new Error(`${where} header ${name}: ${text} ${this.ajv.errorsText(validate.errors)}`);
    }
  }

  private resolve<T>(ref: string): T {
    const parts = ref.replace(/^#\//, '').split('/');
    let node: unknown = this.doc;
    for (const p of parts) node = (node as Json | undefined)?.[p];
    if (node === undefined) throw new Error(`${ref} does not resolve`);
    return node as T;
  }
}
