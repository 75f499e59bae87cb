import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config';
import { InjectConfig } from '../config/config.module';
import { ApiError } from '../common/errors/api-error';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Operator endpoints: `Authorization: Bearer <OPERATOR_TOKEN>` (until console sign-in with roles exists). */
@Injectable()
export class OperatorGuard implements CanActivate {
  constructor(@InjectConfig() private readonly config: Config) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization ?? '';
    const match = /^bearer +(\S+)$/i.exec(header);
    if (!match)
      throw new ApiError('unauthorized', 'Send the operator token as Authorization: Bearer <token>.', [
        { location: 'header.Authorization', message: 'must be Bearer <operator token>' },
      ]);
    if (!timingSafeEqual(digest(match[1]), digest(this.config.secrets.operatorToken))) {
      throw new ApiError('unauthorized', 'The operator token is not valid.', [
        { location: 'header.Authorization', message: 'unknown token' },
      ]);
    }
    return true;
  }
}
