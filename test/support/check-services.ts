import net from "node:net";

const PROBE_TIMEOUT_MS = 3_000;

/**
 * vitest globalSetup: the tests talk to real PostgreSQL and Redis, and a client that cannot
 * connect retries until every hook times out (minutes, no summary). One bounded TCP probe of
 * each service first turns that into an immediate, clear failure.
 */
export default async function checkServices(): Promise<void> {
  const services = [
    { name: "PostgreSQL", variable: "TEST_DATABASE_URL", url: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", port: 5432 },
    { name: "Redis", variable: "TEST_REDIS_URL", url: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379", port: 6379 },
  ];
  const problems = (await Promise.all(services.map(async (service) => {
    const url = new URL(service.url);
    const problem = await probe(url.hostname, Number(url.port || service.port));
    return problem && `${service.name} at ${url.host} (${service.variable}) is not reachable: ${problem}`;
  }))).filter(Boolean);
  if (problems.length > 0) {
    throw new Error(`${problems.join("\n")}\nRun the tests with "npm test", which starts throwaway services, or point ${services.map((s) => s.variable).join(" / ")} at running ones.`);
  }
}

function probe(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ""), port });
    const timer = setTimeout(() => finish(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`), PROBE_TIMEOUT_MS);
    const finish = (problem: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    socket.once("connect", () => finish(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
  });
}
