import { fileTypeFromBuffer } from 'file-type';

/** What a file is for; each purpose has its own types and size limit. */
export const FILE_PURPOSES = ['delivery_photo', 'visitor_photo', 'signature', 'document'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

const MB = 1024 * 1024;
const IMAGES = ['image/jpeg', 'image/png', 'image/webp'];

/** Per purpose: the content types accepted (checked against the bytes on upload) and the largest size. */
export const PURPOSE_LIMITS: Record<FilePurpose, { types: readonly string[]; maxBytes: number }> = {
  delivery_photo: { types: IMAGES, maxBytes: 10 * MB },
  visitor_photo: { types: IMAGES, maxBytes: 5 * MB },
  signature: { types: ['image/png', 'image/jpeg', 'image/webp'], maxBytes: 1 * MB },
  document: { types: ['application/pdf', ...IMAGES], maxBytes: 20 * MB },
};

/** The largest file any purpose accepts (the upload route's body limit). */
export const MAX_FILE_BYTES = Math.max(...Object.values(PURPOSE_LIMITS).map((l) => l.maxBytes));

/** Enough leading bytes to tell every accepted type (file-type reads at most 4100 for these). */
export const SNIFF_BYTES = 4100;

/** The content type the bytes are, by their signature (`file-type`); null when unknown. */
export async function sniffContentType(bytes: Uint8Array): Promise<string | null> {
  const found = await fileTypeFromBuffer(bytes.subarray(0, SNIFF_BYTES));
  return found?.mime ?? null;
}

/**
 * Why an upload of `size` bytes starting with `leading` cannot be the file declared (its size and its type, read
 * from the bytes), or null when it fits.
 */
export async function uploadProblem(
  declared: { contentType: string; size: number },
  size: number,
  leading: Uint8Array,
): Promise<string | null> {
  if (size !== declared.size) return `the upload is ${size} bytes; ${declared.size} bytes were registered`;
  const sniffed = await sniffContentType(leading);
  if (sniffed !== declared.contentType)
    return `the bytes are ${sniffed ?? 'of an unknown type'}, not ${declared.contentType}`;
  return null;
}
