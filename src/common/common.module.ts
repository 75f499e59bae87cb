import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { ErrorRenderer } from './errors/error-renderer';

@Global()
@Module({ providers: [Clock, ErrorRenderer], exports: [Clock, ErrorRenderer] })
export class CommonModule {}
