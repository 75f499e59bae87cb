import { Injectable } from '@nestjs/common';

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & {
  paths: Record<string, Record<string, Json>>;
  components?: Json & { schemas?: Record<string, Json> };
};

/** Holds the two OpenAPI documents built from the code once the app is initialised (see openapi.builder.ts). */
@Injectable()
export class OpenApiRegistry {
  private docs: { public: OpenApiDocument; visitor: OpenApiDocument } | null = null;

  set(docs: { public: OpenApiDocument; visitor: OpenApiDocument }): void {
    this.docs = docs;
  }

  get(which: 'public' | 'visitor'): OpenApiDocument {
    if (!this.docs) throw new Error('OpenAPI documents are not built yet');
    return this.docs[which];
  }
}
