import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const root = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/**
 * `npm ci` prints EBADENGINE for every installed package whose `engines.node` the running Node does not satisfy.
 * This proves, from the lockfile, that none would on the oldest Node the README and `engines` name (.ci/run also
 * fails on the warning itself, on the Node it runs).
 */
describe('engines', () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version;

  it('the README names the same oldest Node as package.json engines', () => {
    expect(readme).toContain(`Node ≥ ${oldest.replace(/\.0$/, '')}`);
  });

  it('every package in the lockfile supports that Node (no EBADENGINE on npm ci)', () => {
    const unsupported = Object.entries(
      lock.packages as Record<string, { version?: string; engines?: unknown }>,
    )
      .filter(([path, info]) => {
        if (!path) return false;
        const node = (info.engines as { node?: string } | undefined)?.node;
        return typeof node === 'string' && !semver.satisfies(oldest, node);
      })
      .map(([path, info]) => `${path}@${info.version}: node ${(info.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });
});
