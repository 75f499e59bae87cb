import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { Config } from './config';

export const CONFIG = Symbol('CONFIG');
export const InjectConfig = (): ParameterDecorator => Inject(CONFIG);

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: Config): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: CONFIG, useValue: config }], exports: [CONFIG] };
  }
}
