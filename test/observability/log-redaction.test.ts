import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/base/logger.js";

/** The process logger's lines for `log`, parsed (the real pino logger, writing to memory). */
function linesOf(log: (logger: ReturnType<typeof createLogger>) => void): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  log(createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }));
  return lines;
}

describe("the process logger's redaction", () => {
  it("hides passwords, keys and texts at the top of a logged object and up to two levels inside it", () => {
    const [line] = linesOf((log) => log.info({
      password: "top-secret-1", apiKey: "mk_live_top",
      err: { text: "the caller's text", cause: { password: "deep-secret-2", key: "mk_live_deep" } },
      headers: { "x-api-key": "mk_live_header" },
      account: { id: "acct_1", email: "a@example.test" },
    }, "something failed"));
    const written = JSON.stringify(line);
    for (const secret of ["top-secret-1", "mk_live_top", "the caller's text", "deep-secret-2", "mk_live_deep", "mk_live_header"]) expect(written).not.toContain(secret);
    expect(line).toMatchObject({ password: "[redacted]", err: { text: "[redacted]", cause: { password: "[redacted]" } } });
    // Fields that are not secrets are logged as they are.
    expect(line).toMatchObject({ account: { id: "acct_1", email: "a@example.test" }, msg: "something failed" });
  });
});
