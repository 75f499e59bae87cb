import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../harness';
import { AppProcess, startAppProcess } from '../support/app-process';

const root = join(__dirname, '../..');

/** A curl of the "Try it" block: the command (continuation lines joined) and the status its comment promises. */
interface Example {
  command: string;
  status: number;
}

/**
 * The README's "Try it" block, read as a script: `export` and `VAR=$(…)` lines set variables, every other `curl`
 * line must end with a comment starting with the HTTP status it answers. The first line (`export KEY=… SITE=…
 * HOST=…`) is the one the start-up block prints, so the test uses the line its freshly started server printed.
 */
function tryItBlock(readme: string): { setup: string[]; steps: (Example | { setup: string })[] } {
  const block = /## Try it[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README has no "## Try it" section with a sh block');
  const lines = block[1]
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const steps: (Example | { setup: string })[] = [];
  const setup: string[] = [];
  for (const line of lines) {
    if (line.startsWith('export KEY=')) continue; // replaced by the server's own line
    if (!/^curl\s/.test(line)) {
      steps.push({ setup: line.replace(/\s+#.*$/, '') });
      continue;
    }
    const m = /^(.*?)\s+#\s*(\d{3})\b/.exec(line);
    if (!m) throw new Error(`a curl of the Try it block has no "# <status>" comment: ${line}`);
    steps.push({ command: m[1], status: Number(m[2]) });
  }
  return { setup, steps };
}

describe('README "Try it" block against a freshly started server', () => {
  let db: TestDatabase;
  let app: AppProcess;
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startAppProcess(db.url, { NODE_ENV: 'development', SEED_ON_FIRST_START: 'true' }, 120_000);
  }, 150_000);
  afterAll(async () => {
    app?.child.kill('SIGTERM');
    await app?.exited;
    await db?.drop();
  });

  it('every curl answers the status the README gives, and again when the block is run a second time', () => {
    const exportLine = /^\s*export KEY=\S+ SITE=\S+ HOST=\S+$/m.exec(app.output());
    expect(exportLine).not.toBeNull();
    const { steps } = tryItBlock(readme);
    expect(steps.filter((s) => 'command' in s).length).toBeGreaterThanOrEqual(5);
    const port = new URL(app.url).port;
    // One bash script: the server's export line, then each step; each curl prints its status on a line of its own.
    const script = [
      'set -u',
      exportLine![0].trim(),
      ...steps.map((s) =>
        'setup' in s
          ? s.setup.replaceAll('localhost:3000', `127.0.0.1:${port}`)
          : `${s.command.replaceAll('localhost:3000', `127.0.0.1:${port}`)} -o /dev/null -w 'STATUS %{http_code}\\n'`,
      ),
    ].join('\n');
    const want = steps.filter((s): s is Example => 'command' in s);
    // A reader may paste the block twice (or run it after an earlier try): nothing in it may work only once.
    for (const run of [1, 2]) {
      const out = execFileSync('bash', ['-c', script], { encoding: 'utf8', cwd: root, timeout: 60_000 });
      const got = [...out.matchAll(/^STATUS (\d{3})$/gm)].map((m) => Number(m[1]));
      expect({ run, statuses: want.map((w, i) => ({ curl: w.command, status: got[i] })) }).toEqual({
        run,
        statuses: want.map((w) => ({ curl: w.command, status: w.status })),
      });
    }
  }, 120_000);
});

describe('README links', () => {
  it('link nothing outside the repository: every link is a file of it, every URL is on localhost', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => /^[a-z]+:/i.test(l) || !existsSync(join(root, l.split('#')[0])))).toEqual([]);
    const urls = [...readme.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)`'"<>]*/gi)].map((m) => m[0]);
    expect(urls.length).toBeGreaterThan(0);
    // a local address of any scheme (http, postgres, redis), or a bare `http://` in prose
    const local = /^[a-z][a-z0-9+.-]*:\/\/([^@/\s]*@)?(localhost|127\.0\.0\.1)([:/]|$)|^https?:\/\/$/i;
    expect(urls.filter((u) => !local.test(u))).toEqual([]);
  });
});
