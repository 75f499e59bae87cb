import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DatabaseHealth } from '../database/database-health';
import { RedisService } from '../redis/redis.service';

/**
 * Liveness (the process answers) and readiness (PostgreSQL and Redis answer). With a read replica configured the
 * checks say whether it serves (`postgres_replica`); a replica that is down does not make the process unready,
 * since reads then go to the primary.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly db: DatabaseHealth,
    private readonly redis: RedisService,
  ) {}

  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  async ready(
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ status: string; checks: Record<string, string> }> {
    const [postgres, redis] = await Promise.all([this.db.ping(), this.redis.ping()]);
    const replica = this.db.replica();
    const checks = {
      postgres: postgres ? 'up' : 'down',
      ...(replica === 'off' ? {} : { postgres_replica: replica }),
      redis: redis ? 'up' : 'down',
    };
    const ok = postgres && redis;
    void reply.status(ok ? 200 : 503).header('Cache-Control', 'no-store');
    return { status: ok ? 'ready' : 'not_ready', checks };
  }
}
