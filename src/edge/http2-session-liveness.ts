import type { Http2Server, ServerHttp2Session } from "node:http2";

/** How long a session has to answer a PING before it is taken for dead and destroyed. */
export const PING_ANSWER_MS = 5_000;

/**
 * Destroys HTTP/2 sessions that no longer answer a PING. A session that receives a malformed
 * frame is wedged by Node: nghttp2 sends GOAWAY and stops reading the socket, no event reaches
 * JavaScript (no 'error', 'goaway' or 'close', not even when the client hangs up), and its
 * streams stay open for good: stream.close() and session.close() wait on a peer nobody reads.
 * Ten such connections of five unfinished streams each held HTTP2_MAX_STREAMS=50 until a
 * restart, so every new HTTP/2 stream was refused. A live peer answers PING at once (RFC 9113
 * 6.7); a wedged session never does, which tells the two apart.
 *
 * Pinged: a session idle for `idleMs` (fastify's http2SessionTimeout), which is then closed as
 * fastify closes idle sessions, or destroyed when it does not answer; and, while `underPressure()`
 * (many streams open), every session, at most one round at a time, as new streams arrive.
 */
export function destroyUnansweringSessions(server: Http2Server, options: { idleMs: number; underPressure: () => boolean }): void {
  const sessions = new Set<ServerHttp2Session>();
  let sweeping = false;
  server.on("session", (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.setTimeout(options.idleMs, () => {
      void answersPing(session).then((alive) => {
        if (!alive) session.destroy();
        else if (!session.closed) session.close();
      });
    });
  });
  server.on("stream", () => {
    if (sweeping || !options.underPressure()) return;
    sweeping = true;
    void Promise.all([...sessions].map(async (session) => {
      if (!(await answersPing(session))) session.destroy();
    })).finally(() => {
      sweeping = false;
    });
  });
}

/** Whether the peer acknowledges a PING within PING_ANSWER_MS. */
function answersPing(session: ServerHttp2Session): Promise<boolean> {
  if (session.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), PING_ANSWER_MS);
    const answered = (alive: boolean) => {
      clearTimeout(timer);
      resolve(alive);
    };
    try {
      // An error here is the session going away on its own (closed, destroyed): not wedged.
      if (!session.ping((error) => answered(error === null || session.destroyed))) answered(true);
    } catch {
      answered(true);
    }
  });
}
