/**
 * The app for the benches, in its own process: Gatehouse as configured, plus bench-only baseline routes with the
 * guard chain switched off (@NoCredential: no key lookup, rate limit, plan or scope checks); the request log,
 * idempotency and error handling run for them too.
 * - `GET /v1/__bench/sites` runs the same handler code as `GET /v1/sites` for a fixed tenant (bench platform).
 * The floors under `POST /v1/visits` and `POST /v1/bookings` are not here but in bare-writes.ts, a process without
 * the framework (benches visits and bookings).
 */
import { Controller, Get, Module, Query } from '@nestjs/common';
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

@Module({
  imports: [PlatformModule, OrganisationsModule],
  controllers: [BenchController],
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
