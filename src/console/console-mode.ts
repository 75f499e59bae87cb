import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { ListQuery } from '../visitor/platform/pagination';
import { PLAN_RULES, Plan } from '../visitor/platform/plans';

/** The cookie holding the console's chosen mode (`live` or `test`), set by the live/test switch (POST /console/mode). */
export const MODE_COOKIE = 'gh_mode';

const MODE_DOC =
  'Mode to work on. Default: the live/test switch of the console (cookie `gh_mode`), else test when the plan has no live access, else live';

/** `?mode=live|test` of console routes that work on one mode (default: `defaultLivemode`). */
export class ModeQuery {
  @ApiPropertyOptional({ enum: ['live', 'test'], description: MODE_DOC })
  @IsOptional()
  @IsIn(['live', 'test'], { message: 'must be live or test' })
  mode?: 'live' | 'test';
}

export class ConsoleModeListQuery extends ListQuery {
  @ApiPropertyOptional({ enum: ['live', 'test'], description: MODE_DOC })
  @IsOptional()
  @IsIn(['live', 'test'], { message: 'must be live or test' })
  mode?: 'live' | 'test';
}

/** One cookie of the request (console routes; the API never reads cookies). */
export function cookieValue(req: FastifyRequest, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [n, ...rest] = part.trim().split('=');
    if (n === name) return rest.join('=') || null;
  }
  return null;
}

/** Whether the plan gives any live-mode access (Free and Starter give none: the console then opens in test). */
export const planHasLive = (plan: Plan): boolean => (PLAN_RULES[plan]?.live.length ?? 0) > 0;

/**
 * The mode a console request works on, one rule for pages and JSON endpoints: an explicit `?mode=live|test`,
 * else the switch's cookie, else test when the plan has no live access, else live.
 */
export function resolveLivemode(req: FastifyRequest, plan: Plan): boolean {
  const explicit = (req.query as Record<string, unknown> | undefined)?.mode;
  if (explicit === 'live' || explicit === 'test') return explicit === 'live';
  const chosen = cookieValue(req, MODE_COOKIE);
  if (chosen === 'live' || chosen === 'test') return chosen === 'live';
  return planHasLive(plan);
}

/** The `gh_mode` cookie the switch sets (a preference, not a secret: readable by nothing but the server anyway). */
export const modeCookie = (mode: 'live' | 'test', secure: boolean) =>
  `${MODE_COOKIE}=${mode}; Path=/console; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Lax; Max-Age=${400 * 24 * 3600}`;
