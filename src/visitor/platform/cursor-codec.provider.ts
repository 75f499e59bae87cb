import { Injectable } from '@nestjs/common';
import type { Config } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import { CursorCodec } from './pagination';

/** The cursor codec keyed from SESSION_SECRET, so every instance signs and checks cursors alike. */
@Injectable()
export class CursorCodecProvider {
  readonly codec: CursorCodec;
  constructor(@InjectConfig() config: Config) {
    this.codec = new CursorCodec(config.secrets.sessionSecret);
  }
}
