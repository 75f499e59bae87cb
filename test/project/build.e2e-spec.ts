import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/**
 * scripts/build.mjs (npm run build: `nest build` with nest-cli.json's swc builder, and `npx gatehouse` with
 * --if-stale) on a small project of its own: it compiles in place (dist/ is never deleted, so a running server keeps its files), removes outputs whose source is gone,
 * and with --if-stale does nothing while dist/ is current.
 */
describe('build script', () => {
  let dir: string;
  const build = (...args: string[]) =>
    execFileSync(process.execPath, [join(dir, 'scripts/build.mjs'), ...args], { cwd: dir, encoding: 'utf8' });
  const mtime = (p: string) => statSync(join(dir, p)).mtimeMs;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gh-build-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src/pages/templates'), { recursive: true });
    mkdirSync(join(dir, 'migrations'));
    copyFileSync(join(root, 'scripts/build.mjs'), join(dir, 'scripts/build.mjs'));
    for (const f of ['.swcrc', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json'])
      copyFileSync(join(root, f), join(dir, f));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'src/main.ts'), 'export const a: number = 1;\n');
    writeFileSync(join(dir, 'src/old.command.ts'), 'export const b = 2;\n');
    writeFileSync(join(dir, 'src/pages/templates/page.eta'), '<p><%= it.x %></p>\n');
    writeFileSync(join(dir, 'migrations/1-Init.ts'), 'export class Init1 {}\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles sources and copies templates into dist/', () => {
    build();
    for (const f of [
      'dist/src/main.js',
      'dist/src/old.command.js',
      'dist/src/pages/templates/page.eta',
      'dist/migrations/1-Init.js',
    ])
      expect({ f, exists: existsSync(join(dir, f)) }).toEqual({ f, exists: true });
  });

  it('--if-stale leaves a current dist/ untouched', () => {
    const before = [mtime('dist/.build-stamp'), mtime('dist/src/main.js')];
    build('--if-stale');
    expect([mtime('dist/.build-stamp'), mtime('dist/src/main.js')]).toEqual(before);
  });

  it('rebuilds in place when a source changed: dist/ is not deleted, outputs of deleted sources are', () => {
    const distInode = statSync(join(dir, 'dist')).ino;
    writeFileSync(join(dir, 'dist/keep-me.txt'), 'a file a running server might hold');
    rmSync(join(dir, 'src/old.command.ts'));
    writeFileSync(join(dir, 'src/main.ts'), 'export const a: number = 2;\n');
    build('--if-stale');
    expect(statSync(join(dir, 'dist')).ino).toBe(distInode);
    expect(existsSync(join(dir, 'dist/keep-me.txt'))).toBe(true);
    expect(existsSync(join(dir, 'dist/src/old.command.js'))).toBe(false);
    expect(
      execFileSync(process.execPath, ['-p', `require(${JSON.stringify(join(dir, 'dist/src/main.js'))}).a`], {
        encoding: 'utf8',
      }).trim(),
    ).toBe('2');
  });
});
