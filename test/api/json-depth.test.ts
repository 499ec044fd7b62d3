import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../src/base/json-depth.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("nestsDeeperThan", () => {
  it("counts arrays and objects opened inside one another", () => {
    expect(nestsDeeperThan(bytes(`${"[".repeat(3)}${"]".repeat(3)}`), 3)).toBe(false);
    expect(nestsDeeperThan(bytes(`${"[".repeat(4)}${"]".repeat(4)}`), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":{"b":[{"c":1}]}}'), 3)).toBe(true);
    // Siblings do not add up: depth, not count.
    expect(nestsDeeperThan(bytes("[[],[],[],[],[]]"), 2)).toBe(false);
  });

  it("skips strings, escaped quotes and backslashes included", () => {
    expect(nestsDeeperThan(bytes(`["${"[{".repeat(50)}"]`), 2)).toBe(false);
    expect(nestsDeeperThan(bytes(String.raw`["a \" [[[[ \\", [[[1]]]]`), 3)).toBe(true);
    expect(nestsDeeperThan(bytes(String.raw`["a \\", "[[[[[["]`), 2)).toBe(false);
  });

  it("stops at the first bracket past the cap and leaves malformed JSON to the parser", () => {
    // Never closed: nothing past the cap, so the parser reports it.
    expect(nestsDeeperThan(bytes('["unterminated [[[[[['), 2)).toBe(false);
    expect(nestsDeeperThan(new Uint8Array(50_000_000).fill(0x5b), 32)).toBe(true);
  });
});
