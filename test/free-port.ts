import { createServer } from "node:net";

/** Ports this process handed out already: two asked in a row must differ before either is bound. */
const handedOut = new Set<number>();

/**
 * A port on 127.0.0.1 nothing listens on, below Linux's ephemeral range
 * (32768 up): a port the system hands out could go to one of workerd's own
 * sockets before wrangler binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
}
