import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_CODE_HEADER, toConnectError } from "../../src/errors/api-error.js";

describe("toConnectError", () => {
  it("carries the code in metadata and the matching Connect code", () => {
    const error = toConnectError(new ApiError("invalid_request", "input[0].type is missing."));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.metadata.get(ERROR_CODE_HEADER)).toBe("invalid_request");
    expect(error.rawMessage).toBe("input[0].type is missing.");
  });

  it("replaces lone surrogates a quoted input left in the message, so gRPC can percent-encode it", () => {
    const error = toConnectError(new ApiError("invalid_request", 'got "\ud800" and "\udc00x", kept "\u{1F600}"'));
    expect(error.rawMessage).toBe('got "\ufffd" and "\ufffdx", kept "\u{1F600}"');
    expect(() => encodeURIComponent(error.rawMessage)).not.toThrow();
  });
});
