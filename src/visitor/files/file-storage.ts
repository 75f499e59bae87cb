/** A link the client uses to move a file's bytes, with the headers it must send. */
export interface TransferLink {
  url: string;
  method: 'PUT' | 'GET';
  headers: Record<string, string>;
  expiresAt: Date;
}

/** What a storage driver is told of a file. */
export interface StoredFile {
  id: string;
  storageKey: string;
  contentType: string;
  size: number;
}

/**
 * Where file bytes live. The local driver keeps them in a directory and its links point at this service
 * (`/files/{token}`), which checks each upload before storing it; the S3 driver hands out presigned URLs of an
 * S3-compatible bucket, so any machine of a deployment reads what another stored.
 */
export interface FileStorage {
  readonly name: 'local' | 's3';
  /** Whether uploads go through this service (checked before anything is stored) rather than to the bucket. */
  readonly uploadsThroughService: boolean;
  uploadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink>;
  downloadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink>;
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The stored size and first `n` bytes, or null when nothing is stored under `key`. */
  peek(key: string, n: number): Promise<{ size: number; leading: Buffer } | null>;
  /** The whole object, or null. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** Releases connections at shutdown. */
  close?(): void;
}

/** Nest token of the configured driver. */
export const FILE_STORAGE = Symbol('FILE_STORAGE');
