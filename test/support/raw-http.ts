import net from "node:net";

/**
 * Sends raw bytes to the HTTP/1.1 listener at `baseUrl` and returns what it writes back: one
 * complete answer (its head and a body of its Content-Length), or else everything until it closes
 * or goes quiet. For what fetch will not send (broken framing, hand-written heads).
 */
export function sendRawHttp(baseUrl: string, raw: string): Promise<string> {
  const port = Number(new URL(baseUrl).port);
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(raw));
    let data = "";
    socket.on("data", (chunk: Buffer) => {
      data += chunk.toString("utf8");
      const end = data.indexOf("\r\n\r\n");
      const length = end < 0 ? undefined : /\r\ncontent-length: *(\d+)/i.exec(data.slice(0, end))?.[1];
      if (length !== undefined && Buffer.byteLength(data.slice(end + 4)) >= Number(length)) socket.destroy();
    });
    socket.on("close", () => resolve(data));
    // Going quiet is judged generously (the suite runs in parallel on 2 cores, where 1 s can pass
    // before an answer); a complete answer ends the wait at once (a kept-alive connection too).
    socket.setTimeout(10_000, () => socket.destroy());
  });
}
