/**
 * Loads @modelcontextprotocol/conformance 0.1.16 on Node 20 (`node --import` this file): its bundle imports
 * `globSync` from `fs` (Node 22+) for the `tier-check` command only, which the tests never run, so the import is
 * replaced by a function saying so. Nothing else in the bundle is changed.
 */
import { register } from 'node:module';
register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function load(url, context, next) {
  const r = await next(url, context);
  if (!url.endsWith('/@modelcontextprotocol/conformance/dist/index.js')) return r;
  const src = String(r.source).replace('globSync as o,', '') + '\\nfunction o(){throw Error("tier-check needs Node 22 (fs.globSync)")}';
  return { ...r, source: src };
}`),
);
