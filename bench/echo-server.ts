import fastify from "fastify";

/** The baseline: a bare fastify app that parses the same JSON body and echoes it. */
const app = fastify({ logger: false });
app.post("/v1/moderate", async (request) => request.body);
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
