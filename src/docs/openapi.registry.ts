import { Injectable } from '@nestjs/common';
import { PREFIX } from '../common/http/surface';

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & {
  paths: Record<string, Record<string, Json>>;
  components?: Json & { schemas?: Record<string, Json> };
};

type Which = 'public' | 'visitor';

/** Holds the two OpenAPI documents built from the code once the app is initialised (see openapi.builder.ts). */
@Injectable()
export class OpenApiRegistry {
  private docs: { public: OpenApiDocument; visitor: OpenApiDocument } | null = null;
  /** `which METHOD route` → the query parameter names documented for it (null: no such operation). */
  private readonly queryNames = new Map<string, ReadonlySet<string> | null>();

  set(docs: { public: OpenApiDocument; visitor: OpenApiDocument }): void {
    this.docs = docs;
    this.queryNames.clear();
  }

  get(which: Which): OpenApiDocument {
    if (!this.docs) throw new Error('OpenAPI documents are not built yet');
    return this.docs[which];
  }

  /**
   * The query parameter names `which` document lists for a Fastify route (`GET`, `/v1/visits/:visit_id`); null when
   * the document does not have the operation. Computed once per route: the public pipeline and the /v1 guard chain
   * ask on every request that carries a query string.
   */
  queryParameters(which: Which, method: string, route: string): ReadonlySet<string> | null {
    const cacheKey = `${which} ${method} ${route}`;
    let names = this.queryNames.get(cacheKey);
    if (names === undefined) {
      const path = route.slice(PREFIX[which].length).replace(/:(\w+)/g, '{$1}') || '/';
      const op = this.get(which).paths[path]?.[method.toLowerCase()] as
        { parameters?: { in: string; name: string }[] } | undefined;
      names = op ? new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)) : null;
      this.queryNames.set(cacheKey, names);
    }
    return names;
  }
}
