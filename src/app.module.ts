import { DynamicModule, Module, Type } from '@nestjs/common';
import type { Config } from './config/config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { CommonModule } from './common/common.module';
import { RouteTable, RouteTableModule } from './common/http/route-table';
import { RedisModule } from './redis/redis.module';
import { OpsModule } from './ops/ops.module';
import { HealthModule } from './health/health.module';
import { ContentModule } from './content/content.module';
import { VisitorModule } from './visitor/visitor.module';
import { ConsoleModule } from './console/console.module';
import { McpModule } from './mcp/mcp.module';
import { PublicMcpModule } from './mcp/public-mcp.module';
import { DocsModule, OpenApiModule } from './docs/docs.module';
import { VisitorWorkerModule } from './visitor/visitor-worker.module';
import { PagesModule } from './pages/pages.module';
import { assertJobsHandled } from './common/queue/job-worker';

/**
 * The whole service: infrastructure (config, database, Redis, clock, request context, request log, health) and
 * the surface modules SURFACES chooses; each surface composes its domain modules.
 */
@Module({})
export class AppModule {
  static forRoot(
    config: Config,
    databaseUrl: string,
    routeTable: RouteTable,
    extraModules: Type[] = [],
  ): DynamicModule {
    const surfaces: Record<string, Type[]> = {
      public: [ContentModule],
      visitor: [VisitorModule],
      // The tool servers: /mcp over the /v1 operations, /public/mcp over the public content API.
      mcp: [
        ...(config.surfaces.includes('visitor') ? [McpModule] : []),
        ...(config.surfaces.includes('public') ? [PublicMcpModule] : []),
      ],
      console: [ConsoleModule],
      docs: [DocsModule],
    };
    // The visitor area's background work runs where RUN_WORKER is on, except in a process that serves the public
    // content API and neither visitor surface: a public-only node loads no visitor code at all.
    const servesVisitor = config.surfaces.some((s) => s === 'visitor' || s === 'console');
    const visitorWork = config.runWorker && (servesVisitor || !config.surfaces.includes('public'));
    const app: DynamicModule = {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, config.databasePoolSize, config.databaseReadUrl),
        RouteTableModule.forRoot(routeTable),
        CommonModule,
        RedisModule,
        OpsModule,
        HealthModule,
        OpenApiModule,
        PagesModule,
        ...config.surfaces.flatMap((s) => surfaces[s]),
        ...(visitorWork ? [VisitorWorkerModule] : []),
        ...extraModules,
      ],
    };
    // A worker whose domains add a job that nothing handles refuses to start, before anything connects.
    if (config.runWorker) assertJobsHandled(app);
    return app;
  }
}
