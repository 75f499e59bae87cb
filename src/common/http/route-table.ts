import { DynamicModule, Injectable, Module } from '@nestjs/common';
import FindMyWay, { HTTPMethod } from 'find-my-way';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A copy of the route table, fed by Fastify's onRoute hook, so a request for a known path with an
 * unsupported method can be told apart from an unknown path (and answered with an `Allow` header).
 */
@Injectable()
export class RouteTable {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly seen = new Set<string>();

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      const key = `${m} ${url}`;
      if (this.seen.has(key) || !METHODS.includes(m as HTTPMethod) || m === 'OPTIONS') continue;
      this.seen.add(key);
      this.router.on(m as HTTPMethod, url, () => undefined);
    }
  }

  methodsFor(path: string): string[] {
    return METHODS.filter((m) => this.router.find(m, path) !== null);
  }
}

/** The route table for every module (a process without HTTP gets an empty one). */
@Module({})
export class RouteTableModule {
  static forRoot(table: RouteTable): DynamicModule {
    return {
      module: RouteTableModule,
      global: true,
      providers: [{ provide: RouteTable, useValue: table }],
      exports: [RouteTable],
    };
  }
}
