import { PHOTO_TYPES } from "../db/photos-table.ts";

/** A media type a photo may be sent as. */
export type PhotoType = (typeof PHOTO_TYPES)[number];

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));

/**
 * The bytes each format's files hold at fixed offsets. The service never
 * decodes an image; the signature is checked so that what it serves as
 * `image/png` is at least meant to be one.
 */
const SIGNATURES: Record<PhotoType, readonly { at: number; bytes: readonly number[] }[]> = {
  "image/jpeg": [{ at: 0, bytes: [0xff, 0xd8, 0xff] }],
  "image/png": [{ at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] }],
  // A RIFF container (its length in the four bytes between) of WebP.
  "image/webp": [
    { at: 0, bytes: ascii("RIFF") },
    { at: 8, bytes: ascii("WEBP") },
  ],
};

/** The photo type a Content-Type header names (parameters and case aside), if it names one. */
export function photoTypeOf(contentType: string | undefined): PhotoType | undefined {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  return PHOTO_TYPES.find((type) => type === essence);
}

/** Whether `bytes` begin with the signature of `type`. */
export function hasSignature(bytes: Uint8Array, type: PhotoType): boolean {
  return SIGNATURES[type].every(({ at, bytes: expected }) =>
    expected.every((byte, i) => bytes[at + i] === byte),
  );
}
