import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { ApiError, toConnectError } from "../errors/api-error.js";

/**
 * A request stream with damaged input refused as INVALID_ARGUMENT (invalid_request): Connect
 * decodes each message of a stream as the handler asks for it (the request body guard decodes
 * unary calls only) and calls a message that does not parse, or does not inflate, INTERNAL, which
 * reads as the server's fault. Size refusals (RESOURCE_EXHAUSTED) and the caller leaving pass as they are.
 */
export async function* clearReadErrors<T>(requests: AsyncIterable<T>, typeName: string): AsyncIterable<T> {
  try {
    yield* requests;
  } catch (error) {
    const connectError = ConnectError.from(error);
    if (connectError.code !== Code.Internal && connectError.code !== Code.InvalidArgument) throw error;
    // The body guard's own refusals (a malformed grpc-timeout...) already carry their code and signature.
    if (connectError.metadata.has("x-error-code")) throw error;
    throw toConnectError(new ApiError("invalid_request", `The request is not a valid ${typeName} message: ${connectError.rawMessage.replace(/\.$/, "")}.`));
  }
}

/** clearReadErrors for every streaming call of a service (Health.Watch: one message, read by Connect). */
export function createStreamReadErrorsInterceptor(): Interceptor {
  return (next) => (request) => (request.stream ? next({ ...request, message: clearReadErrors(request.message, request.method.input.typeName) }) : next(request));
}
