import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './app-process';

/**
 * A PostgreSQL primary and a hot-standby streaming replica of it (`pg_basebackup -R`), each in a temp directory on
 * a free 127.0.0.1 port, from the Debian PostgreSQL binaries (`/usr/lib/postgresql/<version>/bin`, or PG_BIN): the
 * machine's own PostgreSQL is never touched. As root the servers run as the `postgres` system user, as
 * PostgreSQL requires. `close()` stops both and removes the directory.
 */
export interface PgReplication {
  primaryUrl: string;
  replicaUrl: string;
  /** Copies the primary into the replica's directory and starts it (the primary's data as of now, then streamed). */
  startReplica(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the replica's connections break at once, as in a crash. */
  stopReplica(): Promise<void>;
  /** Starts the stopped replica again (it recovers, then streams from the primary). */
  restartReplica(): Promise<void>;
  close(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'pg_basebackup')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(`no PostgreSQL binaries with pg_basebackup under ${root}: install them or set PG_BIN`);
  return join(root, versions[0], 'bin');
}

/** The uid and gid PostgreSQL runs as: ours, or the `postgres` user's when we are root. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPgReplication(): Promise<PgReplication> {
  const bin = binDir();
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'gh-replica-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];

  const run = (cmd: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(join(bin, cmd), args, {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(user ?? {}),
        env: { ...process.env, LC_ALL: 'C', PGCONNECT_TIMEOUT: '10' },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}:\n${out}`)),
      );
    });
  const pgCtl = (data: string, ...args: string[]) =>
    run('pg_ctl', ['-D', data, '-l', join(data, 'server.log'), '-w', '-t', '120', ...args]);
  const conf = (data: string, lines: string[]) =>
    appendFileSync(join(data, 'postgresql.conf'), `\n${lines.join('\n')}\n`);

  let primaryStarted = false;
  let replicaStarted = false;
  const close = async () => {
    if (replicaStarted) await pgCtl(replicaDir, 'stop', '-m', 'immediate').catch(() => undefined);
    if (primaryStarted) await pgCtl(primaryDir, 'stop', '-m', 'immediate').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
    conf(primaryDir, [
      "listen_addresses = '127.0.0.1'",
      `port = ${primaryPort}`,
      "unix_socket_directories = ''",
      'wal_level = replica',
      'max_wal_senders = 4',
      'max_replication_slots = 4',
      'hot_standby = on',
      // a test cluster: durability is not under test, speed on a busy machine is
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 100',
    ]);
    appendFileSync(join(primaryDir, 'pg_hba.conf'), '\nhost replication postgres 127.0.0.1/32 trust\n');
    await pgCtl(primaryDir, 'start');
    primaryStarted = true;
  } catch (e) {
    await close();
    throw e;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
    startReplica: async () => {
      await run('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
        ...['-D', replicaDir, '-R', '-X', 'stream', '-C', '-S', 'gh_replica', '-c', 'fast', '--no-sync'],
      ]);
      conf(replicaDir, [`port = ${replicaPort}`]);
      await pgCtl(replicaDir, 'start');
      replicaStarted = true;
    },
    stopReplica: async () => {
      await pgCtl(replicaDir, 'stop', '-m', 'immediate');
      replicaStarted = false;
    },
    restartReplica: async () => {
      await pgCtl(replicaDir, 'start');
      replicaStarted = true;
    },
    close,
  };
}
