/** A response as `curl -si` (or `curl -i`, `-D -`) saves it: status line, headers, body. */
export interface CapturedResponse {
  httpVersion: string;
  status: number;
  headers: [name: string, value: string][];
  body: Uint8Array;
}

export class CaptureFormatError extends Error {
  override readonly name = "CaptureFormatError";
}

/**
 * Parses a saved HTTP response. Accepts CRLF or bare LF line ends, HTTP/1.0, 1.1, 2 and 3
 * status lines, and skips interim 1xx blocks (e.g. "100 Continue") and proxy CONNECT
 * preambles. The body is returned byte for byte, never trimmed: its digest is signed.
 */
export function parseHttpCapture(capture: Uint8Array): CapturedResponse {
  let offset = 0;
  for (;;) {
    const head = readHead(capture, offset);
    const [statusLine, ...headerLines] = head.lines;
    const match = /^HTTP\/(\d(?:\.\d)?) (\d{3})(?: .*)?$/.exec(statusLine ?? "");
    if (!match) throw new CaptureFormatError(`no HTTP status line at byte ${offset} (got "${(statusLine ?? "").slice(0, 40)}")`);
    const status = Number(match[2]);
    const isProxyPreamble = status === 200 && /connection established/i.test(statusLine ?? "") && headerLines.length === 0;
    if ((status >= 100 && status < 200) || isProxyPreamble) {
      offset = head.bodyStart;
      continue;
    }
    return { httpVersion: match[1] ?? "", status, headers: headerLines.map(parseHeaderLine), body: capture.subarray(head.bodyStart) };
  }
}

function readHead(capture: Uint8Array, start: number): { lines: string[]; bodyStart: number } {
  const lines: string[] = [];
  let lineStart = start;
  for (let i = start; i < capture.length; i++) {
    if (capture[i] !== 0x0a) continue;
    const end = i > lineStart && capture[i - 1] === 0x0d ? i - 1 : i;
    const line = new TextDecoder("latin1").decode(capture.subarray(lineStart, end));
    lineStart = i + 1;
    if (line === "") {
      if (lines.length === 0) continue; // blank lines before a status line
      return { lines, bodyStart: lineStart };
    }
    lines.push(line);
  }
  throw new CaptureFormatError("the capture ends before the blank line that closes the headers");
}

function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(":");
  if (colon <= 0) throw new CaptureFormatError(`malformed header line "${line.slice(0, 40)}"`);
  return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
}
