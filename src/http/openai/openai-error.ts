/**
 * An error in OpenAI's shape, `{"error":{"message","type","param","code"}}`, still carrying the
 * service's stable code in `code`. `type` follows what OpenAI sends for the same status, so
 * code written against OpenAI's errors keeps working: 429 is "requests" (OpenAI's type for a
 * request-rate limit), 5xx "server_error", every other client error "invalid_request_error"
 * (OpenAI uses it for a bad key too). `param` names the request field at fault, when one is.
 */
interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

const INPUT_CODES = new Set(["too_many_items", "text_too_long", "invalid_image", "unsupported_image_type", "image_too_large", "remote_image_not_supported"]);

export function openAiError(status: number, code: string, message: string): OpenAiErrorBody {
  return { error: { message, type: errorType(status), param: paramOf(code, message), code } };
}

function errorType(status: number): string {
  if (status === 429) return "requests";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function paramOf(code: string, message: string): string | null {
  if (INPUT_CODES.has(code)) return "input";
  if (code !== "invalid_request") return null;
  // The translator's and the shared validator's messages start with the field they are about.
  if (message.startsWith('"model"')) return "model";
  // An unknown field, or a body that is no object, names "input" only to say what is expected.
  if (/^(Unknown field|The request body)/.test(message)) return null;
  if (/^("input"|input\[)|"input"/.test(message)) return "input";
  return null;
}

const BAD_REQUEST_HERE = new Set(["image_too_large", "unsupported_image_type", "payload_too_large"]);

/**
 * The status this route answers a code with. A bad image is a bad request to OpenAI's SDKs: 413
 * and 415 have no error class there (they raise a bare APIError, missed by `catch (e) { if (e
 * instanceof BadRequestError) … }`), so an image refused for its size or type, or a body too large
 * for any ten items (an image far over the limit) or for the server's bound on held bodies,
 * answers 400 here, its code unchanged; every other code keeps the error table's status.
 */
export function openAiStatusOf(status: number, code: string): number {
  return BAD_REQUEST_HERE.has(code) ? 400 : status;
}
