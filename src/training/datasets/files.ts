import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";

/** Where the shared datasets live: ../shared/datasets from the repo root, overridable for tests. */
export function datasetsRoot(): string {
  return process.env["MODERATION_DATASETS"] ?? join(process.cwd(), "..", "shared", "datasets");
}

export function readText(root: string, ...parts: string[]): string {
  return readFileSync(join(root, ...parts), "utf8").replace(/^\ufeff/, "");
}

/** RFC 4180 CSV/TSV: quoted fields, doubled quotes, newlines inside quotes. Returns header-keyed rows. */
export function parseDelimited(source: string, delimiter = ","): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const d = delimiter.charCodeAt(0);
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (quoted) {
      if (c === 34) {
        if (source.charCodeAt(i + 1) === 34) {
          field += '"';
          i++;
        } else quoted = false;
      } else field += source[i];
      continue;
    }
    if (c === 34 && field.length === 0) quoted = true;
    else if (c === d) {
      row.push(field);
      field = "";
    } else if (c === 10 || c === 13) {
      if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += source[i];
  }
  if (field.length > 0 || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const header = rows.shift() ?? [];
  return rows
    .filter((r) => r.length > 1 || (r[0] ?? "") !== "")
    .map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])));
}

export function readCsv(root: string, ...parts: string[]): Record<string, string>[] {
  return parseDelimited(readText(root, ...parts), parts.at(-1)?.endsWith(".tsv") ? "\t" : ",");
}

export function readJsonl(root: string, ...parts: string[]): unknown[] {
  return readText(root, ...parts)
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

/** Entries of a (gzipped) ustar archive: enough for stormfront's all_files.tar.gz. */
export function readTarGz(path: string): Map<string, string> {
  const buf = gunzipSync(readFileSync(path));
  const files = new Map<string, string>();
  let off = 0;
  while (off + 512 <= buf.length) {
    const name = buf.toString("utf8", off, off + 100).replace(/\0.*$/s, "");
    if (name.length === 0) break;
    const size = parseInt(buf.toString("utf8", off + 124, off + 136).replace(/\0.*$/s, "").trim() || "0", 8);
    const type = String.fromCharCode(buf[off + 156] ?? 48);
    const prefix = buf.toString("utf8", off + 345, off + 500).replace(/\0.*$/s, "");
    const body = buf.toString("utf8", off + 512, off + 512 + size);
    if (type === "0" || type === "\0") files.set(prefix ? `${prefix}/${name}` : name, body);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Python list literal of strings (as written by str(list)): "['a', \"b's\"]". */
export function parsePythonStringList(source: string): string[] | undefined {
  const out: string[] = [];
  let i = source.indexOf("[");
  if (i < 0) return undefined;
  i++;
  while (i < source.length) {
    const c = source[i];
    if (c === "]") return out;
    if (c === "'" || c === '"') {
      let s = "";
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === "\\" && i + 1 < source.length) {
          const e = source[i + 1];
          s += e === "n" ? "\n" : e === "t" ? "\t" : e;
          i += 2;
        } else s += source[i++];
      }
      if (i >= source.length) return undefined;
      out.push(s);
    }
    i++;
  }
  return undefined;
}

export function decodeHtmlEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}
