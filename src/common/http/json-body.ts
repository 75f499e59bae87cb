import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `max` levels (`{"a":1}` is one level), found by one pass
 * over the bytes before anything is parsed, so no deep structure is ever built. Brackets inside strings do not
 * count; bytes of multi-byte UTF-8 characters are never ASCII, so scanning bytes is exact. Malformed text may be
 * counted wrong, but the parser refuses it anyway.
 */
export function nestsDeeperThan(body: Buffer, max: number): boolean {
  // Valid JSON nested n levels has at least 2n bytes.
  if (body.length < 2 * (max + 1)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * The only body parser (both specs take JSON bodies only: any other type is 415 → `bad_request`). Before Fastify's
 * own JSON parser (which keeps refusing `constructor.prototype`) it refuses bytes that are not UTF-8 —
 * decoding would turn them into U+FFFD and store that — and nesting deeper than `maxDepth`, which code walking
 * the parsed body (the idempotency fingerprint, the NUL scan, class-transformer) would otherwise recurse into
 * until the stack overflows.
 */
export function registerJsonBodyParser(fastify: FastifyInstance, maxDepth: number): void {
  // A `__proto__` key is kept as an own property (JSON.parse never sets a prototype) so the validation pipe refuses
  // it as an unknown field, before any code could copy it with assignment; `constructor.prototype` stays refused.
  const parse = fastify.getDefaultJsonParser('ignore', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes))
      return done(
        new ApiError('bad_request', 'The body is not valid UTF-8.', [
          { location: 'body', message: 'must be UTF-8' },
        ]),
        undefined,
      );
    if (nestsDeeperThan(bytes, maxDepth))
      return done(
        new ApiError('bad_request', `The body nests arrays and objects deeper than ${maxDepth} levels.`, [
          { location: 'body', message: `must not nest deeper than ${maxDepth} levels` },
        ]),
        undefined,
      );
    parse(req, bytes.toString('utf8'), done);
  });
}
