/**
 * The app for the benches, in its own process: Gatehouse as configured, plus bench-only baseline routes with the
 * guard chain switched off (@NoCredential: no key lookup, rate limit, plan or scope checks); the request log,
 * idempotency and error handling run for them too.
 * - `GET /v1/__bench/sites` runs the same handler code as `GET /v1/sites` for a fixed tenant (bench platform).
 * - `POST /v1/__bench/visits` writes a visitor and a visit row with plain INSERTs — no reference checks, forms,
 *   events or pass — the floor under `POST /v1/visits` (bench visits).
 */
import { Body, Controller, Get, Inject, Module, Post, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId } from '../src/common/ids';
import { loadConfig } from '../src/config/config';
import { createApp } from '../src/app.factory';
import { NoCredential } from '../src/visitor/platform/authorize.decorator';
import { OrganisationsController } from '../src/visitor/organisations/organisations.controller';
import { OrganisationsModule } from '../src/visitor/organisations/organisations.module';
import { PlatformModule } from '../src/visitor/platform/platform.module';
import { ListQuery } from '../src/visitor/platform/pagination';

@Controller('v1/__bench')
class BenchController {
  constructor(private readonly sites: OrganisationsController) {}

  @Get('sites')
  @NoCredential()
  list(@Query() q: ListQuery) {
    return this.sites.sites({ organisationId: String(process.env.BENCH_ORG), livemode: true }, q);
  }
}

@Controller('v1/__bench')
class BenchVisitsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  @Post('visits')
  @NoCredential()
  async create(@Body() body: { site_id: string; host_id: string; visitor: { name: string; phone: string } }) {
    const tenant = [String(process.env.BENCH_ORG), false];
    const now = new Date();
    const visitor = newId('visitor');
    const visit = newId('visit');
    await this.ds.transaction(async (m) => {
      await m.query(
        `INSERT INTO visitor.visitor (id, organisation_id, livemode, name, phone, last_visit_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $6)`,
        [visitor, ...tenant, body.visitor.name, body.visitor.phone, now],
      );
      await m.query(
        `INSERT INTO visitor.visit (id, organisation_id, livemode, status, type, source, site_id, host_id, visitor_id, pass_channels, created_at, updated_at)
         VALUES ($1, $2, $3, 'expected', 'meeting', 'invitation', $4, $5, $6, '{sms}', $7, $7)`,
        [visit, ...tenant, body.site_id, body.host_id, visitor, now],
      );
    });
    return { id: visit };
  }
}

@Module({
  imports: [PlatformModule, OrganisationsModule],
  controllers: [BenchController, BenchVisitsController],
  providers: [OrganisationsController],
})
class BenchModule {}

async function main() {
  const config = loadConfig();
  const app = await createApp(config, String(process.env.DATABASE_URL), {
    logger: ['error'],
    extraModules: [BenchModule],
  });
  await app.listen({ port: config.port, host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
  process.send?.('ready');
}

void main();
