import type { IncomingHttpHeaders } from "node:http";

/**
 * A Headers for the JSON route's handler context, without the WHATWG class's per-call input
 * validation (undici's Headers converts and checks every name and value through WebIDL, which
 * showed in profiles at a handful of headers per request). Node has already validated what it
 * parsed off the wire, and the values our interceptors set are our own constants and numbers.
 *
 * Names are stored lower-cased, as Headers does; iteration is in insertion order (Headers sorts,
 * which nothing here relies on: HTTP header order carries no meaning). It is a Headers as far
 * as Connect and our interceptors use one (get, set, has, append, delete, forEach, entries).
 */
export class PlainHeaders implements Headers {
  private readonly byName = new Map<string, string>();

  /** The request's headers as Node parsed them (names already lower-case; HTTP/2 pseudo-headers dropped). */
  static fromIncoming(incoming: IncomingHttpHeaders): PlainHeaders {
    const headers = new PlainHeaders();
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || name.charCodeAt(0) === 0x3a /* ":" */) continue;
      headers.byName.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    return headers;
  }

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.byName.set(name.toLowerCase(), String(value));
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const existing = this.byName.get(key);
    this.byName.set(key, existing === undefined ? String(value) : `${existing}, ${value}`);
  }

  delete(name: string): void {
    this.byName.delete(name.toLowerCase());
  }

  getSetCookie(): string[] {
    const value = this.byName.get("set-cookie");
    return value === undefined ? [] : [value];
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.byName) callback.call(thisArg, value, name, this);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.byName.entries();
  }

  keys(): HeadersIterator<string> {
    return this.byName.keys();
  }

  values(): HeadersIterator<string> {
    return this.byName.values();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}

/** Reads single headers of a Node request as PlainHeaders.fromIncoming would hold them (repeats joined), without copying them all. */
export function incomingHeaderReader(incoming: IncomingHttpHeaders): { get(name: string): string | null } {
  return {
    get(name) {
      const value = incoming[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
