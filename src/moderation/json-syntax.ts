// What is wrong with a JSON text that JSON.parse refused, in the service's own words: where (line
// and column) and what. Run only on the failure path, after JSON.parse threw: V8's messages differ
// between versions and some give no position ("Unexpected token ']', ..."xt":"hi"},]}" is not valid
// JSON"), so the text is scanned again here, by the grammar of RFC 8259, to the first fault.

/** The example a refusal of an empty body, or of one of the wrong shape, shows. */
export const EXAMPLE_BODY = '{"input":[{"type":"text","text":"..."}]}';

/** The refusal of an empty body (nothing, or only spaces and line breaks). */
export const EMPTY_BODY_MESSAGE = `The request body is empty; send a JSON object such as ${EXAMPLE_BODY}.`;

/** The refusal of a body whose bytes are not UTF-8 (RFC 8259, 8.1). */
export const NOT_UTF8_MESSAGE = "The request body is not valid JSON: it is not UTF-8 text (JSON is sent as UTF-8).";

/** Whether `text` holds nothing but JSON whitespace. */
export function isBlank(text: string): boolean {
  return /^[ \t\n\r]*$/.test(text);
}

/**
 * The refusal of a text JSON.parse refused: EMPTY_BODY_MESSAGE for a blank one, else the first
 * fault with its line and column (1-based; columns count Unicode code points).
 */
export function invalidJsonMessage(text: string): string {
  if (isBlank(text)) return EMPTY_BODY_MESSAGE;
  const fault = firstFault(text);
  if (fault === undefined) return "The request body is not valid JSON.";
  return `The request body is not valid JSON: ${fault.what(`at ${lineAndColumn(text, fault.at)}`)}.`;
}

/** Where the fault is, and what it is: `what(where)` says both. */
interface Fault {
  at: number;
  what: (where: string) => string;
}

/** JSON text nested deeper than this is not scanned (the routes refuse it before parsing, at 32). */
const MAX_SCAN_DEPTH = 256;

/** The first fault of `text` by JSON's grammar; undefined if none is found. */
export function firstFault(text: string): Fault | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.value("a JSON value", 0);
    scanner.space();
    if (scanner.i < text.length) return scanner.unexpected("the end of the body (one JSON value only)");
    return undefined;
  } catch (error) {
    if (error instanceof FaultFound) return error.fault;
    throw error;
  }
}

class FaultFound extends Error {
  constructor(readonly fault: Fault) {
    super("JSON fault");
  }
}

class Scanner {
  i = 0;
  constructor(private readonly s: string) {}

  space(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  /** A fault at the current position: the text ends, or holds a character where `expected` should be. */
  unexpected(expected: string): never {
    const at = this.i;
    if (at >= this.s.length) {
      throw new FaultFound({ at, what: (where) => `it ends ${where}, before its JSON is complete (a string, array or object is not closed, or a value is missing)` });
    }
    const char = String.fromCodePoint(this.s.codePointAt(at)!);
    const hint = hintFor(char, this.previousSignificant(at), expected);
    throw new FaultFound({ at, what: (where) => `unexpected ${shown(char)} ${where}; expected ${expected}${hint}` });
  }

  private previousSignificant(at: number): string | undefined {
    for (let j = at - 1; j >= 0; j--) {
      const c = this.s[j]!;
      if (c !== " " && c !== "\n" && c !== "\r" && c !== "\t") return c;
    }
    return undefined;
  }

  value(expected: string, depth: number): void {
    this.space();
    const c = this.s[this.i];
    if (c === "{") return this.object(depth + 1);
    if (c === "[") return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const literal of ["true", "false", "null"]) {
      if (c === literal[0]) return this.literal(literal);
    }
    this.unexpected(expected);
  }

  private object(depth: number): void {
    if (depth > MAX_SCAN_DEPTH) throw new FaultFound({ at: this.i, what: (where) => `it nests too deeply ${where}` });
    this.i++;
    this.space();
    if (this.s[this.i] === "}") {
      this.i++;
      return;
    }
    for (let first = true; ; first = false) {
      this.space();
      if (this.s[this.i] !== '"') this.unexpected(first ? 'a double-quoted key or "}"' : "a double-quoted key");
      this.string();
      this.space();
      if (this.s[this.i] !== ":") this.unexpected('":" after the key');
      this.i++;
      this.value("a value", depth);
      this.space();
      const next = this.s[this.i];
      if (next === "}") {
        this.i++;
        return;
      }
      if (next !== ",") this.unexpected('"," or "}"');
      this.i++;
    }
  }

  private array(depth: number): void {
    if (depth > MAX_SCAN_DEPTH) throw new FaultFound({ at: this.i, what: (where) => `it nests too deeply ${where}` });
    this.i++;
    this.space();
    if (this.s[this.i] === "]") {
      this.i++;
      return;
    }
    for (;;) {
      this.value("a value", depth);
      this.space();
      const next = this.s[this.i];
      if (next === "]") {
        this.i++;
        return;
      }
      if (next !== ",") this.unexpected('"," or "]"');
      this.i++;
    }
  }

  private string(): void {
    const s = this.s;
    this.i++;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) {
        const at = this.i;
        const escape = c === 0x0a ? " (write it as \\n)" : c === 0x09 ? " (write it as \\t)" : c === 0x0d ? " (write it as \\r)" : "";
        throw new FaultFound({ at, what: (where) => `a raw control character (${codePoint(c)}) inside a string ${where}; JSON strings take it escaped${escape}` });
      }
      if (c === 0x5c) {
        const at = this.i;
        const e = s[this.i + 1];
        if (e === undefined) break;
        if (e === "u") {
          const digits = /^[0-9a-fA-F]{0,4}/.exec(s.slice(this.i + 2, this.i + 6))![0];
          if (digits.length < 4) {
            throw new FaultFound({ at, what: (where) => `an invalid escape ${shown(`\\u${digits}`)} ${where}; \\u takes four hex digits` });
          }
          this.i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) {
          throw new FaultFound({ at, what: (where) => `an invalid escape ${shown(`\\${e}`)} ${where}; JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX` });
        }
        this.i += 2;
        continue;
      }
      this.i++;
    }
    this.i = s.length;
    this.unexpected("a closing quote");
  }

  private number(): void {
    const match = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
    match.lastIndex = this.i;
    const found = match.exec(this.s);
    if (!found) {
      if (this.s[this.i] === "-") this.i++;
      this.unexpected("a digit");
    }
    this.i += found[0].length;
    // A fraction or exponent cut short ("1.", "1e"): the regular expression stopped before it.
    const next = this.s[this.i];
    if (next === "." || next === "e" || next === "E") {
      this.i++;
      if (this.s[this.i] === "+" || this.s[this.i] === "-") this.i++;
      this.unexpected("a digit");
    }
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.unexpected(k === 0 ? "a value" : `${shown(word)}`);
    }
  }
}

/** A hint for a common mistake, after the expectation. */
function hintFor(char: string, before: string | undefined, expected: string): string {
  if ((char === "]" || char === "}") && before === ",") return ` (JSON allows no comma before ${shown(char)})`;
  if (char === "'") return " (JSON strings and keys take double quotes)";
  if (/^[\u2018\u2019\u201c\u201d]$/.test(char)) return ' (a typographic quote: JSON takes straight double quotes ")';
  if (expected.startsWith("a double-quoted key") && /^[A-Za-z_$]$/.test(char)) return " (a key must be in double quotes)";
  if (char === '"' && (expected.startsWith('","') || expected.startsWith("the end"))) return " (a comma missing before it?)";
  if (char === "\ufeff") return " (a second byte-order mark)";
  return "";
}

/** A character as a refusal shows it: quoted when printable, else by its code point. */
function shown(text: string): string {
  if (text.length === 1 || (text.length === 2 && text.codePointAt(0)! > 0xffff)) {
    const code = text.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0) || /^\p{Cf}$/u.test(text)) return codePoint(code);
    if (text === '"') return "'\"'";
  }
  return `"${text}"`;
}

function codePoint(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** "line L, column C" of the UTF-16 offset `at`: lines split at line feeds, columns counted in code points. */
export function lineAndColumn(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let j = text.indexOf("\n"); j >= 0 && j < at; j = text.indexOf("\n", j + 1)) {
    line++;
    lineStart = j + 1;
  }
  let column = 1;
  for (let j = lineStart; j < at; j++) {
    const c = text.charCodeAt(j);
    if (c >= 0xd800 && c <= 0xdbff && j + 1 < at) {
      const next = text.charCodeAt(j + 1);
      if (next >= 0xdc00 && next <= 0xdfff) j++;
    }
    column++;
  }
  return `line ${line}, column ${column}`;
}
