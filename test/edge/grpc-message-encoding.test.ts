import { describe, expect, it } from "vitest";
import { encodeGrpcMessage } from "../../src/edge/grpc-message-encoding.js";

describe("encodeGrpcMessage", () => {
  it("keeps printable ASCII as is, which decodeURI-based clients read correctly", () => {
    const message = 'input[0].type is "video"; it must be "text" or "image": a/b?c=d&e,f';
    expect(encodeGrpcMessage(message)).toBe(message);
    expect(decodeURI(encodeGrpcMessage(message))).toBe(message);
  });

  it("escapes %, control characters and non-ASCII as UTF-8 bytes", () => {
    const message = "100% sûr\n🙂";
    const encoded = encodeGrpcMessage(message);
    expect(encoded).toBe("100%25 s%C3%BBr%0A%F0%9F%99%82");
    expect(decodeURIComponent(encoded)).toBe(message);
    expect(decodeURI(encoded)).toBe(message);
  });
});
