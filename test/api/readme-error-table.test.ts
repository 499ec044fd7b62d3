import fs from "node:fs";
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors/api-error.js";

/** The README's error table, parsed: code, HTTP status, gRPC status name. */
function readmeErrorTable(): Array<{ code: string; http: number; grpc: string }> {
  const lines = fs.readFileSync("README.md", "utf8").split("\n");
  const header = lines.findIndex((line) => /^\| code \| HTTP \| gRPC \| when \|$/.test(line));
  if (header < 0) throw new Error("README.md has no error table (| code | HTTP | gRPC | when |)");
  const rows = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const [code, http, grpc] = line.split("|").slice(1, 4).map((cell) => cell.trim());
    rows.push({ code: code!.replace(/`/g, ""), http: Number(http), grpc: grpc! });
  }
  return rows;
}

/** Code.InvalidArgument -> "INVALID_ARGUMENT", as gRPC names its statuses. */
const grpcName = (code: Code) => Code[code]!.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();

describe("README error table", () => {
  const rows = readmeErrorTable();

  it("lists every code of src/errors/api-error.ts once, and no other", () => {
    expect(rows.map((row) => row.code).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("gives each code the HTTP and gRPC status the code gives it", () => {
    const expected = rows.map((row) => {
      const entry = ERROR_CODES[row.code as keyof typeof ERROR_CODES];
      return { code: row.code, http: entry?.http, grpc: entry ? grpcName(entry.connect) : undefined };
    });
    expect(rows).toEqual(expected);
  });
});
