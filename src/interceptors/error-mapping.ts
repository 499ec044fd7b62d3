import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ERROR_CODE_HEADER, toApiError, toConnectError } from "../errors/api-error.js";
import type { Logger } from "../app/logger.js";

/**
 * Turns whatever the inner chain throws into a ConnectError that carries a stable code.
 * Unknown errors become internal_error: their cause is logged here and never sent.
 */
export function createErrorMappingInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof ConnectError && error.metadata.has(ERROR_CODE_HEADER)) throw error;
      const apiError = toApiError(error);
      if (apiError.code === "internal_error") {
        log.error({ err: apiError.cause, procedure: req.method.name }, "request failed");
      }
      throw toConnectError(apiError);
    }
  };
}
