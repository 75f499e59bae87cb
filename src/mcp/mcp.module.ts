import { Module } from '@nestjs/common';
import { OpenApiModule } from '../docs/docs.module';
import { AuditModule } from '../visitor/audit/audit.module';
import { PlatformModule } from '../visitor/platform/platform.module';
import { VisitorModule } from '../visitor/visitor.module';
import { McpController } from './mcp.controller';
import { McpDocsController } from './mcp-docs.controller';
import { McpToolServer } from './tool-server';
import { V1Operations } from './v1-operations';

/**
 * The tool server for AI assistants (`SURFACES` `mcp`): `/mcp` over the /v1 operations of VisitorModule, through
 * the /v1 guard chain (PlatformModule) and the /v1 idempotency store; calls audited (AuditModule).
 */
@Module({
  imports: [VisitorModule, PlatformModule, AuditModule, OpenApiModule],
  controllers: [McpController, McpDocsController],
  providers: [V1Operations, McpToolServer],
})
export class McpModule {}
