import { ApiError } from '../../src/common/errors/api-error';
import { ApiValidationPipe } from '../../src/common/errors/validation.pipe';
import { nestsDeeperThan } from '../../src/common/http/json-body';
import { canonical } from '../../src/visitor/platform/idempotency';

/** A value nested `depth` objects deep: {a:{a:…{a: leaf}}}. */
function deep(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/**
 * The walks over a parsed body (idempotency fingerprint, NUL scan) loop instead of recursing, so even a value far
 * deeper than JSON_MAX_DEPTH lets through cannot overflow the stack.
 */
describe('walks over parsed bodies', () => {
  it('the idempotency fingerprint sorts keys at every level and survives 100,000 levels', () => {
    expect(canonical({ b: [1, { d: null, c: 'x' }, [], {}], a: true, u: undefined, n: [undefined] })).toBe(
      '{"a":true,"b":[1,{"c":"x","d":null},[],{}],"n":[null],"u":null}',
    );
    expect(canonical('s')).toBe('"s"');
    expect(canonical(deep(100_000, 1))).toBe(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
  });

  it('the NUL scan finds the first NUL in document order and survives 100,000 levels', async () => {
    const pipe = new ApiValidationPipe();
    const locate = async (body: unknown) => {
      try {
        await pipe.transform(body, { type: 'body' });
        return null;
      } catch (e) {
        return (e as ApiError).errors;
      }
    };
    expect(await locate({ x: 'ok', y: ['a', 'b\0'], z: '\0' })).toEqual([
      { location: 'body.y.1', message: 'must not contain the NUL character' },
    ]);
    expect(await locate({ x: { 'k\0': 1 }, z: '\0' })).toEqual([
      { location: 'body.x', message: 'must not contain the NUL character' },
    ]);
    const found = await locate(deep(100_000, 'bad\0'));
    expect(found?.[0].location).toBe(`body${'.a'.repeat(100_000)}`);
    expect(await locate(deep(100_000, 'fine'))).toBeNull();
  });

  it('the depth scan counts brackets outside strings only', () => {
    const at = (s: string, max: number) => nestsDeeperThan(Buffer.from(s), max);
    expect(at('[[[[1]]]]', 3)).toBe(true);
    expect(at('[[[[1]]]]', 4)).toBe(false);
    expect(at('{"a":"[[[[[[[[","b":[[1]]}', 3)).toBe(false);
    expect(at('{"a":"[[[[[[[[","b":[[1]]}', 2)).toBe(true);
    expect(at('{"a":"\\"[[[[[[[[[[","b":[[1]]}', 3)).toBe(false);
    expect(at('[1],[2],[3],[4],[5],[6],[7],[8]', 1)).toBe(false);
  });
});
