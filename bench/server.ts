/**
 * The app for the benches, in its own process: Gatehouse as configured, plus bench-only baseline routes with the
 * guard chain switched off (@NoCredential: no key lookup, rate limit, plan or scope checks); the request log,
 * idempotency and error handling run for them too.
 * - `GET /v1/__bench/sites` runs the same handler code as `GET /v1/sites` for a fixed tenant (bench platform).
 * - `POST /v1/__bench/visits` writes a visitor and a visit row with plain INSERTs — no reference checks, forms,
 *   events or pass — the floor under `POST /v1/visits` (bench visits).
 * - `POST /v1/__bench/bookings` takes a place with the slot counter upsert and INSERTs the booking (bench bookings).
 */
import { Body, Controller, Get, Inject, Module, Post, Query } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../src/common/errors/api-error';
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

@Controller('v1/__bench')
class BenchBookingsController {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** The floor under POST /v1/bookings: the slot counter upsert and one INSERT, no checks, events or visit. */
  @Post('bookings')
  @NoCredential()
  async create(
    @Body() body: { booking_type_id: string; start: string; attendee: { name: string; phone: string } },
  ) {
    const tenant = [String(process.env.BENCH_ORG), false];
    const id = newId('booking');
    const now = new Date();
    const start = new Date(body.start);
    const ok = await this.ds.transaction(async (m) => {
      const taken: unknown[] = await m.query(
        `INSERT INTO visitor.booking_slot AS s (booking_type_id, starts_at, organisation_id, livemode, capacity, taken)
         VALUES ($1, $2, $3, $4, 2, 1)
         ON CONFLICT (booking_type_id, starts_at) DO UPDATE SET taken = s.taken + 1 WHERE s.taken < 2 RETURNING taken`,
        [body.booking_type_id, start, ...tenant],
      );
      if (!taken.length) return false;
      await m.query(
        `INSERT INTO visitor.booking (id, organisation_id, livemode, booking_type_id, status, source, starts_at, ends_at,
           site_id, host_id, attendee_name, attendee_phone, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', 'api', $5, $6, 'site_bench', 'person_bench', $7, $8, $9, $9)`,
        [
          id,
          ...tenant,
          body.booking_type_id,
          start,
          new Date(start.getTime() + 1_800_000),
          body.attendee.name,
          body.attendee.phone,
          now,
        ],
      );
      return true;
    });
    if (!ok) throw new ApiError('conflict', 'This slot has just been taken.');
    return { id };
  }
}

@Module({
  imports: [PlatformModule, OrganisationsModule],
  controllers: [BenchController, BenchVisitsController, BenchBookingsController],
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
