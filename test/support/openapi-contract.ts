import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Validates real responses against the served OpenAPI 3.1 document, so code and contract cannot drift.
 * Usage: `const contract = await Contract.fetch(app, '/v1/openapi.json'); contract.expectValid(res);`
 */
type Json = Record<string, unknown>;
interface Doc {
  servers?: { url: string }[];
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Json }> }> }>
  >;
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

/** OpenAPI 3.0's `nullable: true` (still emitted by some generators) as 3.1/JSON Schema type unions. */
function normalise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalise);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\//, 'doc#/') : normalise(v);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.$ref || out.allOf) return { anyOf: [{ ...out }, { type: 'null' }] };
  }
  return out;
}

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly prefix: string;
  private readonly templates: { template: string; re: RegExp }[];

  constructor(readonly doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: normalise(doc.components ?? {}) } as Json);
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
    const response = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    if (!response) throw new Error(`${method} ${match.template} does not document status ${status}`);
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
      validate = this.ajv.compile(normalise(media.schema) as Json);
      this.cache.set(key, validate);
    }
    if (!validate(res.json())) {
      throw new Error(
        `${key} does not match the contract:\n${this.ajv.errorsText(validate.errors, { separator: '\n' })}`,
      );
    }
  }
}
