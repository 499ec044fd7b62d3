import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ERROR_CODE_HEADER, toApiError, toConnectError } from "../errors/api-error.js";
import type { Logger } from "../base/logger.js";
import { observationKey } from "../observability/request-observation.js";
import { callerKey } from "./context-keys.js";

/**
 * Turns whatever the inner chain throws into a ConnectError that carries a stable code.
 * Unknown errors become internal_error: their cause is logged here and never sent.
 * It is also where a call's outcome is final, so it notes the account and the error code for
 * the request log and metrics (src/observability): no extra layer, no extra promise per call.
 */
export function createErrorMappingInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    const observation = req.contextValues.get(observationKey);
    try {
      const res = await next(req);
      if (observation) observation.accountId = req.contextValues.get(callerKey)?.accountId;
      return res;
    } catch (error) {
      let connectError: ConnectError;
      if (error instanceof ConnectError && error.metadata.has(ERROR_CODE_HEADER)) {
        connectError = error;
      } else {
        const apiError = toApiError(error);
        if (apiError.code === "internal_error") {
          log.error({ err: apiError.cause, procedure: req.method.name, requestId: observation?.requestId }, "request failed");
        }
        connectError = toConnectError(apiError);
      }
      if (observation) {
        observation.accountId = req.contextValues.get(callerKey)?.accountId;
        observation.errorCode = connectError.metadata.get(ERROR_CODE_HEADER) ?? undefined;
      }
      throw connectError;
    }
  };
}
