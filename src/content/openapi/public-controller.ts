import {
  applyDecorators,
  CallHandler,
  Controller,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ApiError } from '../../common/errors/api-error';
import { PREFIX } from '../../common/http/surface';
import { OpenApiRegistry } from '../../docs/openapi.registry';

/**
 * Refuses query parameters a /public/v1 route does not document: 400 VALIDATION_FAILED naming each one
 * (`query.<name>`). The served OpenAPI document is the one list of what each route takes, so the contract and
 * the behaviour cannot drift. It runs after the credential and rate-limit guard (the 400 is counted and carries
 * the RateLimit headers) and before the validation pipe, so every route — lists, details, stats, categories —
 * answers an unknown parameter the same way.
 */
@Injectable()
export class RefuseUndocumentedQuery implements NestInterceptor {
  private readonly known = new Map<string, Set<string>>();

  constructor(private readonly registry: OpenApiRegistry) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const allowed = this.allowedFor(req.routeOptions.url ?? '');
    const unknown = Object.keys((req.query as Record<string, unknown> | undefined) ?? {}).filter(
      (name) => !allowed.has(name),
    );
    if (unknown.length)
      throw ApiError.validation(
        unknown.map((name) => ({
          location: `query.${name}`,
          message: 'is not a parameter of this endpoint',
        })),
      );
    return next.handle();
  }

  /** Query parameter names the document lists for a Fastify route (`/public/v1/x/:slug` → `/x/{slug}`). */
  private allowedFor(route: string): Set<string> {
    let names = this.known.get(route);
    if (!names) {
      const path = route.slice(PREFIX.public.length).replace(/:(\w+)/g, '{$1}') || '/';
      const op = this.registry.get('public').paths[path]?.get as
        { parameters?: { in: string; name: string }[] } | undefined;
      names = new Set((op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
      this.known.set(route, names);
    }
    return names;
  }
}

/** Declares a /public/v1 controller: its path under the prefix, its OpenAPI tag, and the shared query check. */
export const PublicController = (path: string, tag: string) =>
  applyDecorators(
    Controller(`${PREFIX.public.slice(1)}${path ? `/${path}` : ''}`),
    ApiTags(tag),
    UseInterceptors(RefuseUndocumentedQuery),
  );
