import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FileLinks } from './file-links';
import type { FileStorage, StoredFile, TransferLink } from './file-storage';

/** Files in a directory (FILES_DIR, `.data/files` by default); links are signed URLs of this service. */
export class LocalFileStorage implements FileStorage {
  readonly name = 'local' as const;
  readonly uploadsThroughService = true;

  constructor(
    private readonly dir: string,
    private readonly baseUrl: string,
    private readonly links: FileLinks,
  ) {}

  private path(key: string): string {
    if (!/^[A-Za-z0-9_/.-]+$/.test(key) || key.includes('..')) throw new Error(`bad storage key ${key}`);
    return join(this.dir, key);
  }

  private link(file: StoredFile, method: 'PUT' | 'GET', expiresAt: Date): TransferLink {
    const token = this.links.sign({ fileId: file.id, method, expiresAt });
    return {
      url: `${this.baseUrl.replace(/\/$/, '')}/files/${token}`,
      method,
      headers: method === 'PUT' ? { 'Content-Type': file.contentType } : {},
      expiresAt,
    };
  }

  async uploadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink> {
    return this.link(file, 'PUT', expiresAt);
  }

  async downloadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink> {
    return this.link(file, 'GET', expiresAt);
  }

  /** Written to a temporary name and renamed, so a reader never sees half a file. */
  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, path);
  }

  async peek(key: string, n: number): Promise<{ size: number; leading: Buffer } | null> {
    try {
      const fh = await open(this.path(key), 'r');
      try {
        const { size } = await fh.stat();
        const leading = Buffer.alloc(Math.min(n, size));
        await fh.read(leading, 0, leading.length, 0);
        return { size, leading };
      } finally {
        await fh.close();
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
