/**
 * The app for `npm run bench -- platform`, in its own process: Gatehouse as configured, plus one bench-only
 * route, `GET /v1/__bench/sites`, which runs the same handler code as `GET /v1/sites` (repository query,
 * cursor page) for a fixed tenant with the guard chain switched off (@NoCredential: no key lookup, rate limit,
 * plan or scope checks). The request log and error handling run for both.
 */
import { Controller, Get, Module, Query } from '@nestjs/common';
import { loadConfig } from '../src/config/config';
import { createApp } from '../src/app.factory';
import { NoCredential } from '../src/visitor/platform/authorize.decorator';
import { OrganisationsController } from '../src/visitor/organisations/organisations.controller';
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

@Module({ controllers: [BenchController], providers: [OrganisationsController] })
class BenchModule {}

async function main() {
  const config = loadConfig();
  const app = await createApp(config, String(process.env.DATABASE_URL), {
    logger: ['error'],
    extraModules: [BenchModule],
  });
  await app.listen({ port: config.port, host: '127.0.0.1' });
  process.send?.('ready');
}

void main();
