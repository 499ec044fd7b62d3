import http2 from "node:http2";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { destroyStuckSessions } from "../../src/edge/http2-session-liveness.js";
import { waitUntil } from "../support/poll.js";

// Node wedges an HTTP/2 session that receives a malformed frame: GOAWAY, no more reading, no event
// in JavaScript, and its streams stay open for good (with HTTP2_MAX_STREAMS, their places too).
// A real Node HTTP/2 server and clients, with short timings.

const TIMINGS = { idleMs: 60_000, pingAnswerMs: 300, sweepEveryMs: 100, drainMs: 500 };
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server that keeps every request open, counting them, with the liveness checks on. */
async function startServer(underPressure: () => boolean, timings = TIMINGS): Promise<{ url: string; open: () => number }> {
  let open = 0;
  const server = http2.createServer((request) => {
    open++;
    request.stream.once("close", () => open--);
  });
  destroyStuckSessions(server, { ...timings, underPressure });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, open: () => open };
}

/** A client session on a socket the test can write garbage to. */
function connect(url: string): { session: http2.ClientHttp2Session; socket: () => net.Socket } {
  const { port } = new URL(url);
  let socket: net.Socket | undefined;
  const session = http2.connect(url, { createConnection: () => (socket = net.connect(Number(port), "127.0.0.1")) });
  session.on("error", () => {});
  cleanups.push(() => session.destroy());
  return { session, socket: () => socket! };
}

function openStreams(session: http2.ClientHttp2Session, count: number): http2.ClientHttp2Stream[] {
  return Array.from({ length: count }, () => {
    const stream = session.request({ ":method": "POST", ":path": "/" }, { endStream: false });
    stream.on("error", () => {});
    stream.write("x");
    return stream;
  });
}

const wedge = (socket: net.Socket) => {
  socket.write(Buffer.alloc(100, 0xff));
  socket.destroy();
};

/**
 * Whether this Node frees a wedged session's streams by itself (Node 24 does; Node 20 keeps
 * them for good): then there is nothing left for the liveness checks to do, and the test skips.
 */
async function nodeFreesWedgedSessions(open: () => number, wedgedStreams: number): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return open() < wedgedStreams;
}

describe("sessions that no longer answer", () => {
  it("destroys a wedged session under pressure, freeing its streams, and keeps a live one", async ({ skip }) => {
    const server = await startServer(() => true);
    const wedged = connect(server.url);
    openStreams(wedged.session, 5);
    await waitUntil(() => server.open() === 5, "5 open sessions", 2_000);
    wedge(wedged.socket());
    if (await nodeFreesWedgedSessions(server.open, 5)) return skip();
    const live = connect(server.url);
    const kept = openStreams(live.session, 3); // new streams start the round of PINGs
    await waitUntil(() => server.open() === 3, "3 open sessions", TIMINGS.pingAnswerMs + 2_000);
    expect(kept.every((stream) => !stream.closed)).toBe(true);
  });

  it("leaves a wedged session alone while few streams are open (the idle check finds it)", async ({ skip }) => {
    const server = await startServer(() => false);
    const wedged = connect(server.url);
    openStreams(wedged.session, 2);
    await waitUntil(() => server.open() === 2, "2 open sessions", 2_000);
    wedge(wedged.socket());
    if (await nodeFreesWedgedSessions(server.open, 2)) return skip();
    openStreams(connect(server.url).session, 1);
    await new Promise((resolve) => setTimeout(resolve, TIMINGS.pingAnswerMs + 300));
    expect(server.open()).toBe(3);
  });

  it("at its idle time, destroys a wedged session and closes a live one with GOAWAY, as fastify closed idle sessions", async () => {
    const server = await startServer(() => false, { ...TIMINGS, idleMs: 300 });
    const wedged = connect(server.url);
    openStreams(wedged.session, 2);
    await waitUntil(() => server.open() === 2, "2 open sessions", 2_000);
    wedge(wedged.socket());
    const live = connect(server.url);
    const goaway = new Promise<number>((resolve) => live.session.once("goaway", (code) => resolve(code)));
    await waitUntil(() => server.open() === 0, "0 open sessions", 300 + TIMINGS.pingAnswerMs + 2_000);
    expect(await goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
  });

  it("destroys a session that said GOAWAY and then wedged, once it has held streams past the drain time (Node cannot ping it)", async ({ skip }) => {
    const server = await startServer(() => true);
    const wedged = connect(server.url);
    openStreams(wedged.session, 4);
    await waitUntil(() => server.open() === 4, "4 open sessions", 2_000);
    wedged.session.goaway(http2.constants.NGHTTP2_NO_ERROR);
    await new Promise((resolve) => setTimeout(resolve, 100));
    wedge(wedged.socket());
    if (await nodeFreesWedgedSessions(server.open, 4)) return skip();
    const live = connect(server.url);
    // Each new stream may start a round: the first sees the session closing, a later one, past
    // the drain time, destroys it.
    let liveStreams = 0;
    const end = Date.now() + TIMINGS.drainMs + 3_000;
    while (server.open() !== liveStreams) {
      if (Date.now() > end) throw new Error(`${server.open()} streams open, ${liveStreams} of them live`);
      openStreams(live.session, 1);
      liveStreams++;
      await new Promise((resolve) => setTimeout(resolve, TIMINGS.sweepEveryMs + 50));
    }
    expect(liveStreams).toBeGreaterThan(1);
  });
});
