import { DynamicModule, Module, Type } from '@nestjs/common';
import type { Config } from './config/config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { CommonModule } from './common/common.module';
import { RouteTable } from './common/http/route-table';
import { RedisModule } from './redis/redis.module';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { OpsModule } from './ops/ops.module';
import { HealthModule } from './health/health.module';
import { ContentModule } from './content/content.module';
import { VisitorModule } from './visitor/visitor.module';
import { ConsoleModule } from './console/console.module';
import { DocsModule, OpenApiModule } from './docs/docs.module';
import { WebhooksModule } from './visitor/webhooks/webhooks.module';
import { FormsModule } from './visitor/forms/forms.module';
import { PeopleModule } from './visitor/people/people.module';
import { VisitTypesModule } from './visitor/visit-types/visit-types.module';
import { PlatformModule } from './visitor/platform/platform.module';
import { VisitsModule } from './visitor/visits/visits.module';

@Module({})
class RouteTableModule {
  static forRoot(table: RouteTable): DynamicModule {
    return {
      module: RouteTableModule,
      global: true,
      providers: [{ provide: RouteTable, useValue: table }],
      exports: [RouteTable],
    };
  }
}

/** The whole service; SURFACES chooses which surface modules this process serves. */
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
      console: [ConsoleModule],
      docs: [DocsModule],
    };
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(databaseUrl, config.databasePoolSize),
        RouteTableModule.forRoot(routeTable),
        CommonModule,
        RedisModule,
        RateLimitModule,
        OpenApiModule,
        OpsModule,
        HealthModule,
        PlatformModule,
        WebhooksModule.forRoot(config),
        FormsModule,
        PeopleModule,
        VisitTypesModule,
        VisitsModule.forRoot(config),
        ...config.surfaces.flatMap((s) => surfaces[s]),
        ...extraModules,
      ],
    };
  }
}
