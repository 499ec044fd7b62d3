import type { Http2Session } from "node:http2";
import type { Server as HttpServer } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * Closes a listener gracefully, but not forever: in-flight requests get `graceMs` to finish,
 * then whatever is still open (a client stuck mid-upload, an HTTP/2 session that never ends)
 * is cut, so a shutdown cannot hang.
 */
export function trackForGracefulClose(app: FastifyInstance, graceMs: number): () => Promise<void> {
  const sessions = new Set<Http2Session>();
  app.server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  return async () => {
    const closing = app.close();
    // HTTP/2: GOAWAY, so clients open no new streams while the current ones finish.
    for (const session of sessions) if (!session.closed) session.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), graceMs);
    });
    if ((await Promise.race([closing.then(() => "closed" as const), deadline])) === "timeout") {
      for (const session of sessions) session.destroy();
      (app.server as HttpServer).closeAllConnections?.();
      await closing;
    }
    clearTimeout(timer);
  };
}
