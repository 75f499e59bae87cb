import { SetMetadata } from '@nestjs/common';

const CHANGES_WITH = 'gatehouse:public:changes-with';

/**
 * Declares the `content` tables a public controller's bodies are made of (on the class, for all its routes, or on
 * one method): a body can change only when one of them does (their versions, `content.table_version`, kept by
 * triggers) — or when the clock moves, which `ChangesWithClock` declares instead. PublicPipeline answers an
 * `If-None-Match` of a declared route from the tables' versions when it has served the same URL at those versions
 * (see PublicPipeline.conditional). Every table the controller's SQL names must be listed
 * (test/content/conditional-reads.e2e-spec.ts checks the repositories' SQL against it).
 */
export const ChangesWith = (...tables: string[]) => SetMetadata(CHANGES_WITH, [...tables].sort());

/**
 * Declares a route whose body depends on the time of the request (a window such as "the last 7 days", an
 * availability computed from now, a per-process cache refreshed on a timer): no table version can stand for it,
 * so its `If-None-Match` is compared with the SHA-256 of the body it would send, as before.
 */
export const ChangesWithClock = () => SetMetadata(CHANGES_WITH, null);

/** The tables a route's body is made of (method first, then class), or null: none declared, or clock-dependent. */
export function changesWith(controller: object, method: object): readonly string[] | null {
  const own = Reflect.getMetadata(CHANGES_WITH, method) as string[] | null | undefined;
  if (own !== undefined) return own;
  return (Reflect.getMetadata(CHANGES_WITH, controller) as string[] | undefined) ?? null;
}
