import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../../config/config';
import type { FileStorage, StoredFile, TransferLink } from './file-storage';

const notFound = (e: unknown) => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404;
};

/**
 * Files in an S3-compatible bucket (AWS SDK v3). Uploads and downloads use presigned URLs: the upload URL signs
 * the content type and the exact registered length, so the bucket refuses any other; the bytes themselves are
 * checked by the service when the file is first read (FilesService.settle), which deletes an object that is not
 * what was registered.
 */
export class S3FileStorage implements FileStorage {
  readonly name = 's3' as const;
  readonly uploadsThroughService = false;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: Config['files']['s3']) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint ?? undefined,
      forcePathStyle: settings.forcePathStyle,
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: presigned URLs stay plain, and S3-compatible servers accept them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private expiresIn(expiresAt: Date): number {
    return Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  }

  async uploadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: file.storageKey,
      ContentType: file.contentType,
      ContentLength: file.size,
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: this.expiresIn(expiresAt),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, method: 'PUT', headers: { 'Content-Type': file.contentType }, expiresAt };
  }

  async downloadLink(file: StoredFile, expiresAt: Date): Promise<TransferLink> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: file.storageKey });
    const url = await getSignedUrl(this.client, command, { expiresIn: this.expiresIn(expiresAt) });
    return { url, method: 'GET', headers: {}, expiresAt };
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async peek(key: string, n: number): Promise<{ size: number; leading: Buffer } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      const size = Number(head.ContentLength ?? 0);
      if (size === 0) return { size, leading: Buffer.alloc(0) };
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${Math.min(n, size) - 1}` }),
      );
      return { size, leading: Buffer.from(await got.Body!.transformToByteArray()) };
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await got.Body!.transformToByteArray());
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
