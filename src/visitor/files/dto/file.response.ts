import { ApiProperty } from '@nestjs/swagger';
import { FILE_PURPOSES } from '../file-purposes';
import type { TransferLink } from '../file-storage';
import type { FileRow } from '../files.repository';

export class TransferLinkResponse {
  @ApiProperty({ description: 'Short-lived signed URL, good for one file and one method' }) url: string;
  @ApiProperty({ enum: ['PUT', 'GET'] }) method: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Headers to send with the request',
  })
  headers: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
}

export class FileResponse {
  @ApiProperty({ example: 'file_3kT9qLm4Rx7Vd2Wn8YsBc1' }) id: string;
  @ApiProperty({ enum: FILE_PURPOSES }) purpose: string;
  @ApiProperty({ example: 'image/jpeg' }) content_type: string;
  @ApiProperty({ description: 'Size in bytes' }) size: number;
  @ApiProperty({ type: String, nullable: true }) filename: string | null;
  @ApiProperty({
    enum: ['pending', 'ready', 'rejected'],
    description: 'pending until the bytes arrive and pass the checks; rejected when they did not',
  })
  status: string;
  @ApiProperty({ type: String, nullable: true, description: 'Why the upload was rejected' })
  rejected_reason: string | null;
  @ApiProperty({ type: String, nullable: true }) visit_id: string | null;
  @ApiProperty({
    type: TransferLinkResponse,
    nullable: true,
    description: 'Where to PUT the bytes (in the response that registers the file only)',
  })
  upload: TransferLinkResponse | null;
  @ApiProperty({
    type: TransferLinkResponse,
    nullable: true,
    description: 'A short-lived download link, once the file is ready',
  })
  download: TransferLinkResponse | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) uploaded_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const toLinkResponse = (l: TransferLink): TransferLinkResponse => ({
  url: l.url,
  method: l.method,
  headers: l.headers,
  expires_at: l.expiresAt.toISOString(),
});

export function toFileResponse(
  f: FileRow,
  links: { upload?: TransferLink | null; download?: TransferLink | null } = {},
): FileResponse {
  return {
    id: f.id,
    purpose: f.purpose,
    content_type: f.content_type,
    size: f.size,
    filename: f.filename,
    status: f.status,
    rejected_reason: f.rejected_reason,
    visit_id: f.visit_id,
    upload: links.upload ? toLinkResponse(links.upload) : null,
    download: links.download ? toLinkResponse(links.download) : null,
    uploaded_at: f.uploaded_at ? new Date(f.uploaded_at).toISOString() : null,
    created_at: new Date(f.created_at).toISOString(),
  };
}
