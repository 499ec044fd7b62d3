import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "./metrics.js";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";

interface MetricsServer {
  /** http://host:port of the listener. */
  url: string;
  close(): Promise<void>;
}

/**
 * The listener METRICS_PORT asks for: GET /metrics and nothing else (404 in the API's error
 * shape). A plain Node server: it needs no routing, hooks or body parsing.
 */
export async function startMetricsServer(options: { port: number; host: string; metrics: Metrics }): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      const body = JSON.stringify({ error: { code: "not_found", message: `No route for ${request.method} ${path}; this listener serves GET /metrics.` } });
      response.writeHead(404, { "content-type": "application/json; charset=utf-8", [ERROR_CODE_HEADER]: "not_found" }).end(body);
      return;
    }
    options.metrics.render().then(
      (text) => response.writeHead(200, { "content-type": options.metrics.contentType }).end(request.method === "HEAD" ? undefined : text),
      () => response.writeHead(500, { "content-type": "application/json; charset=utf-8", [ERROR_CODE_HEADER]: "internal_error" })
        .end(JSON.stringify({ error: { code: "internal_error", message: "The metrics could not be collected." } })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
