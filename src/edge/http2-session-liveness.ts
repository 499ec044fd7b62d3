import type { Http2Server, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import type { Socket } from "node:net";

export interface LivenessTimings {
  /** A session with nothing received for this long is checked (fastify's http2SessionTimeout). */
  idleMs: number;
  /** How long a peer has to answer a PING (gRPC's keepalive allows 20 s). */
  pingAnswerMs: number;
  /** At most one round of PINGs this often, while many streams are open. */
  sweepEveryMs: number;
  /** How long a session that said goodbye (GOAWAY) may keep streams open once many are open. */
  drainMs: number;
}

export const LIVENESS_DEFAULTS: Omit<LivenessTimings, "idleMs"> = { pingAnswerMs: 20_000, sweepEveryMs: 10_000, drainMs: 30_000 };

/**
 * Destroys HTTP/2 sessions whose streams would otherwise stay open for good. A session that
 * receives a malformed frame is wedged by Node: nghttp2 sends GOAWAY and stops reading the socket,
 * no event reaches JavaScript (no 'error', 'goaway' or 'close', not even when the client hangs
 * up), and stream.close() or session.close() wait on a peer nobody reads. Ten such connections of
 * five unfinished streams each held HTTP2_MAX_STREAMS=50 until a restart. (Node 20; Node 24
 * frees such a session's streams itself, and these checks then find nothing to do.) A live peer
 * answers a PING (RFC 9113 6.7); a wedged session never does.
 *
 * - A session idle for `idleMs` is pinged: closed as fastify closes idle sessions when it
 *   answers, destroyed when it does not; one already closing (it or we said goodbye) and idle
 *   again is destroyed, as Node cannot ping it.
 * - While `underPressure()` (many streams open), at most every `sweepEveryMs`, each session that
 *   holds streams is pinged, and destroyed when it does not answer within `pingAnswerMs`; a
 *   closing one is destroyed once it has held streams for `drainMs` since first seen closing
 *   (a client could say GOAWAY, then wedge the session, to escape the PING).
 * A verdict waits for the poll phase after its timer, so an answer that came while this process
 * was busy is read first: a stall of ours must not destroy healthy sessions.
 */
export function destroyStuckSessions(server: Http2Server, options: { underPressure: () => boolean } & LivenessTimings): void {
  const sessions = new Map<ServerHttp2Session, { streams: number; socket: Socket | undefined; closingSince?: number }>();
  let lastSweep = Number.NEGATIVE_INFINITY;
  // Node makes a connection's session, and emits 'session', inside its own 'connection' listener.
  let connecting: Socket | undefined;
  server.prependListener("connection", (socket: Socket) => {
    connecting = socket;
  });
  /** The session and its socket: on Node 24 a destroyed session can leave its socket open. */
  const destroy = (session: ServerHttp2Session) => {
    const socket = sessions.get(session)?.socket;
    session.destroy();
    socket?.destroy();
  };

  server.on("session", (session: ServerHttp2Session) => {
    sessions.set(session, { streams: 0, socket: connecting });
    connecting = undefined;
    session.once("close", () => sessions.delete(session));
    session.setTimeout(options.idleMs, () => {
      if (session.closed) return destroy(session);
      void answersPing(session, options.pingAnswerMs).then((alive) => {
        if (!alive) destroy(session);
        else if (!session.closed) session.close();
      });
    });
  });

  server.on("stream", (stream: ServerHttp2Stream) => {
    const tracked = sessions.get(stream.session as ServerHttp2Session);
    if (tracked) {
      tracked.streams++;
      stream.once("close", () => tracked.streams--);
    }
    const now = Date.now();
    if (now - lastSweep < options.sweepEveryMs || !options.underPressure()) return;
    lastSweep = now;
    for (const [session, state] of sessions) {
      if (state.streams === 0 || session.destroyed) continue;
      if (session.closed) {
        state.closingSince ??= now;
        if (now - state.closingSince >= options.drainMs) destroy(session);
        continue;
      }
      void answersPing(session, options.pingAnswerMs).then((alive) => {
        if (!alive) destroy(session);
      });
    }
  });
}

/** Whether the peer acknowledges a PING within `withinMs` (judged after the next poll phase). */
function answersPing(session: ServerHttp2Session, withinMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (alive: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(alive);
    };
    // setImmediate runs after the poll phase: an acknowledgement already in the socket is read first.
    const timer = setTimeout(() => setImmediate(() => settle(false)), withinMs);
    try {
      // An error is the session going away on its own (closing, destroyed): nothing to judge.
      const sent = session.ping((error) => settle(error === null || session.destroyed || session.closed));
      if (!sent) settle(true);
    } catch {
      settle(true);
    }
  });
}
