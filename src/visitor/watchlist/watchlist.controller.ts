import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authorize } from '../platform/authorize.decorator';
import type { Credential } from '../platform/credential';
import { CurrentCredential, CurrentTenant } from '../platform/current';
import { Page, PageOf } from '../platform/pagination';
import type { Tenant } from '../platform/tenant';
import { CreateWatchlistEntryBody, WatchlistQuery } from './dto/watchlist.request';
import { WatchlistEntryResponse } from './dto/watchlist.response';
import { WatchlistService } from './watchlist.service';

@ApiTags('Watchlist')
@Controller('v1/watchlist-entries')
export class WatchlistController {
  constructor(private readonly watchlist: WatchlistService) {}

  @Post()
  @Authorize({ scope: 'watchlist:write' })
  @ApiOperation({
    summary: 'Add a watchlist entry',
    description: 'Visits are screened against it from now on (create, change, check-in).',
    operationId: 'createWatchlistEntry',
  })
  @ApiCreatedResponse({ type: WatchlistEntryResponse })
  add(
    @CurrentTenant() tenant: Tenant,
    @CurrentCredential() credential: Credential,
    @Body() body: CreateWatchlistEntryBody,
  ): Promise<WatchlistEntryResponse> {
    return this.watchlist.add(tenant, credential.actingAccountId ?? credential.id, body);
  }

  @Get()
  @Authorize({ scope: 'watchlist:read' })
  @ApiOperation({ summary: 'Watchlist entries, oldest first', operationId: 'listWatchlistEntries' })
  @ApiOkResponse({ type: PageOf(WatchlistEntryResponse) })
  list(@CurrentTenant() tenant: Tenant, @Query() q: WatchlistQuery): Promise<Page<WatchlistEntryResponse>> {
    return this.watchlist.page(tenant, q);
  }

  @Get(':watch_id')
  @Authorize({ scope: 'watchlist:read' })
  @ApiOperation({ summary: 'One watchlist entry', operationId: 'getWatchlistEntry' })
  @ApiOkResponse({ type: WatchlistEntryResponse })
  get(@CurrentTenant() tenant: Tenant, @Param('watch_id') id: string): Promise<WatchlistEntryResponse> {
    return this.watchlist.get(tenant, id);
  }

  @Delete(':watch_id')
  @HttpCode(204)
  @Authorize({ scope: 'watchlist:write' })
  @ApiOperation({
    summary: 'Remove a watchlist entry',
    description: 'Matches already recorded keep its id.',
    operationId: 'deleteWatchlistEntry',
  })
  @ApiNoContentResponse()
  remove(@CurrentTenant() tenant: Tenant, @Param('watch_id') id: string): Promise<void> {
    return this.watchlist.remove(tenant, id);
  }
}
