const bytesOf = (body: string | Uint8Array) =>
  typeof body === "string" ? new TextEncoder().encode(body) : body;

/** A body that arrives in chunks with no Content-Length, as a chunked upload does. */
export function streamOf(body: string | Uint8Array, chunkSize = 1000): ReadableStream<Uint8Array> {
  const bytes = bytesOf(body);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/** A body that promises `length` bytes and ends sooner, as a client that drops the connection does. */
export function cutShort(body: string | Uint8Array, length: number): ReadableStream<Uint8Array> {
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  void writer.write(bytesOf(body)).then(() => writer.close().catch(() => {}));
  return readable;
}
