import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Clock } from './clock';
import { ErrorRenderer } from './errors/error-renderer';
import { PeriodicScheduler } from './periodic';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [Clock, ErrorRenderer, PeriodicScheduler],
  exports: [Clock, ErrorRenderer, PeriodicScheduler],
})
export class CommonModule {}
