/**
 * The smallest baseline JPEG: one grey pixel (a quantisation table of ones,
 * one Huffman code each for the DC and AC tables, and a scan of two zero
 * bits). A real image that any decoder shows, not only a JPEG's signature:
 * what the tests upload where a browser or a person looks at the result.
 */
export function onePixelJpeg(): Uint8Array<ArrayBuffer> {
  const segment = (marker: number, body: number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  const oneCode = (tableClass: number) => [tableClass, 1, ...Array(15).fill(0), 0];
  return Uint8Array.from([
    ...[0xff, 0xd8],
    ...segment(0xdb, [0, ...Array(64).fill(1)]),
    ...segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]),
    ...segment(0xc4, oneCode(0x00)),
    ...segment(0xc4, oneCode(0x10)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    0x3f,
    ...[0xff, 0xd9],
  ]);
}
