/**
 * The slice of RFC 8941 Structured Field Values that HTTP Message Signatures (RFC 9421) and
 * Content-Digest (RFC 9530) use: dictionaries whose members are byte sequences, strings,
 * integers, tokens, booleans or inner lists, each with parameters. Pure code, no node:
 * imports, so the client verifier shares it.
 */

export type BareItem =
  | { type: "integer"; value: number }
  | { type: "string"; value: string }
  | { type: "token"; value: string }
  | { type: "bytes"; value: Uint8Array }
  | { type: "boolean"; value: boolean };

export type Parameters = [name: string, value: BareItem][];

export interface Item {
  item: BareItem;
  params: Parameters;
}

export interface InnerList {
  items: Item[];
  params: Parameters;
}

type DictionaryMember = Item | InnerList;
type Dictionary = Map<string, DictionaryMember>;

export function isInnerList(member: DictionaryMember): member is InnerList {
  return "items" in member;
}

export class StructuredFieldError extends Error {
  override readonly name = "StructuredFieldError";
}

// --- serialization -------------------------------------------------------------------------

function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case "integer":
      if (!Number.isSafeInteger(item.value) || Math.abs(item.value) > 999_999_999_999_999) {
        throw new StructuredFieldError(`integer out of range: ${item.value}`);
      }
      return String(item.value);
    case "string":
      if (!/^[\x20-\x7e]*$/.test(item.value)) throw new StructuredFieldError("string holds non-printable ASCII");
      return `"${item.value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    case "token":
      return item.value;
    case "bytes":
      return `:${bytesToBase64(item.value)}:`;
    case "boolean":
      return item.value ? "?1" : "?0";
  }
}

function serializeParameters(params: Parameters): string {
  return params
    .map(([name, value]) => (value.type === "boolean" && value.value ? `;${name}` : `;${name}=${serializeBareItem(value)}`))
    .join("");
}

function serializeItem(item: Item): string {
  return serializeBareItem(item.item) + serializeParameters(item.params);
}

export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(" ")})${serializeParameters(list.params)}`;
}

function serializeMember(member: DictionaryMember): string {
  return isInnerList(member) ? serializeInnerList(member) : serializeItem(member);
}

/**
 * A dictionary of one byte-sequence member without parameters, `key=:<base64>:`: what
 * serializeDictionary writes for it, without the generic walk (digest and signature headers
 * are written on every response).
 */
export function serializeByteSequenceMember(key: string, bytes: Uint8Array): string {
  return `${key}=:${bytesToBase64(bytes)}:`;
}

export function serializeDictionary(dict: Dictionary): string {
  return [...dict]
    .map(([key, member]) => {
      if (!isInnerList(member) && member.item.type === "boolean" && member.item.value) {
        return key + serializeParameters(member.params);
      }
      return `${key}=${serializeMember(member)}`;
    })
    .join(", ");
}

// --- parsing -------------------------------------------------------------------------------

/** Parses a Dictionary field value; throws StructuredFieldError on anything malformed. */
export function parseDictionary(input: string): Dictionary {
  const parser = new Parser(input);
  const dict: Dictionary = new Map();
  parser.skipSpaces();
  if (parser.done()) return dict;
  for (;;) {
    const key = parser.parseKey();
    let member: DictionaryMember;
    if (parser.peek() === "=") {
      parser.advance();
      member = parser.parseItemOrInnerList();
    } else {
      member = { item: { type: "boolean", value: true }, params: parser.parseParameters() };
    }
    dict.set(key, member);
    parser.skipOws();
    if (parser.done()) return dict;
    parser.expect(",");
    parser.skipOws();
    if (parser.done()) throw new StructuredFieldError("trailing comma in dictionary");
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly input: string) {}

  done(): boolean {
    return this.pos >= this.input.length;
  }
  peek(): string {
    return this.input[this.pos] ?? "";
  }
  advance(): string {
    return this.input[this.pos++] ?? "";
  }
  expect(char: string): void {
    if (this.advance() !== char) throw new StructuredFieldError(`expected "${char}" at offset ${this.pos - 1}`);
  }
  skipSpaces(): void {
    while (this.peek() === " ") this.pos++;
  }
  skipOws(): void {
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
  }

  parseKey(): string {
    const match = /^[a-z*][a-z0-9_\-.*]*/.exec(this.input.slice(this.pos));
    if (!match) throw new StructuredFieldError(`expected a key at offset ${this.pos}`);
    this.pos += match[0].length;
    return match[0];
  }

  parseItemOrInnerList(): DictionaryMember {
    if (this.peek() !== "(") return { item: this.parseBareItem(), params: this.parseParameters() };
    this.advance();
    const items: Item[] = [];
    for (;;) {
      this.skipSpaces();
      if (this.peek() === ")") {
        this.advance();
        return { items, params: this.parseParameters() };
      }
      items.push({ item: this.parseBareItem(), params: this.parseParameters() });
      const next = this.peek();
      if (next !== " " && next !== ")") throw new StructuredFieldError(`malformed inner list at offset ${this.pos}`);
    }
  }

  parseParameters(): Parameters {
    const params: Parameters = [];
    while (this.peek() === ";") {
      this.advance();
      this.skipSpaces();
      const name = this.parseKey();
      let value: BareItem = { type: "boolean", value: true };
      if (this.peek() === "=") {
        this.advance();
        value = this.parseBareItem();
      }
      const existing = params.findIndex(([n]) => n === name);
      if (existing >= 0) params.splice(existing, 1);
      params.push([name, value]);
    }
    return params;
  }

  parseBareItem(): BareItem {
    const rest = this.input.slice(this.pos);
    const c = this.peek();
    if (c === '"') return this.parseString();
    if (c === ":") {
      const match = /^:([A-Za-z0-9+/=]*):/.exec(rest);
      if (!match) throw new StructuredFieldError(`malformed byte sequence at offset ${this.pos}`);
      this.pos += match[0].length;
      return { type: "bytes", value: base64ToBytes(match[1] ?? "") };
    }
    if (c === "?") {
      const match = /^\?([01])/.exec(rest);
      if (!match) throw new StructuredFieldError(`malformed boolean at offset ${this.pos}`);
      this.pos += 2;
      return { type: "boolean", value: match[1] === "1" };
    }
    const integer = /^-?[0-9]{1,15}(?![0-9.])/.exec(rest);
    if (integer) {
      this.pos += integer[0].length;
      return { type: "integer", value: Number(integer[0]) };
    }
    const token = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/.exec(rest);
    if (token) {
      this.pos += token[0].length;
      return { type: "token", value: token[0] };
    }
    throw new StructuredFieldError(`unsupported item at offset ${this.pos}`);
  }

  parseString(): BareItem {
    this.expect('"');
    let value = "";
    for (;;) {
      const c = this.advance();
      if (c === "") throw new StructuredFieldError("unterminated string");
      if (c === '"') return { type: "string", value };
      if (c === "\\") {
        const escaped = this.advance();
        if (escaped !== '"' && escaped !== "\\") throw new StructuredFieldError("invalid escape in string");
        value += escaped;
      } else if (c < " " || c > "~") {
        throw new StructuredFieldError("non-printable character in string");
      } else {
        value += c;
      }
    }
  }
}

// --- base64 (no Buffer, so browsers can use this file) ----------------------------------

export function bytesToBase64(bytes: Uint8Array): string {
  // Node's Buffer where there is one (every response's digests and signature pass here);
  // browsers, where the client verifies, take the btoa path.
  if (typeof Buffer !== "undefined") return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function base64ToBytes(base64: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    throw new StructuredFieldError("invalid base64");
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
