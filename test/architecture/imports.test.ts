import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The import rules of src/ (docs/architecture.md explains them). A unit is a folder under src/;
 * a file belongs to the longest unit path that contains it (src/providers/text/families/x.ts is in
 * "providers/text", src/classifiers/rules/y.ts in "classifiers"). Files directly in src/ form ".".
 */

/**
 * Layers, lowest first. A unit may import units of lower layers (and itself); never a unit of its
 * own or a higher layer. Every folder under src/ must fall in a unit listed here.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["base"], // logger, environment values, the API's size limits: no imports inside src/
  ["threads"], // the generic worker pool, shared by compute workers and the image model
  ["storage"],
  ["errors"],
  ["signing", "classifiers", "accounts"],
  ["providers", "metering", "rate-limit", "client", "policies"], // client: what callers use to verify signed answers
  ["observability"],
  ["providers/text", "images"],
  ["moderation"],
  ["dashboard"],
  ["config"], // reads every unit's settings from the environment into one Config
  ["workers"],
  ["interceptors"],
  ["rpc"],
  ["http"],
  ["app"], // composition root: builds the AppContext
  ["edge"], // where every request enters: listeners, shared port, HTTP/2 trailers, framework errors
  [".", "cli", "training", "boot"], // entry points and offline tools
];

/**
 * The one exception: the edge units receive the AppContext the composition root builds, so they
 * may name its type (`import type` only: they never create it).
 */
const TYPE_ONLY_UPWARD: Readonly<Record<string, readonly string[]>> = {
  "app/app-context.ts": ["dashboard", "interceptors", "rpc", "http"],
};

const SRC = path.resolve(import.meta.dirname, "../../src");

interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Comments out, so an import written in a comment does not count; string contents are kept. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Static imports and re-exports (`import x from`, `import type`, `export … from`, `import "x"`) and `import("x")`. */
const STATIC_IMPORT = /(?:^|[;\n}])\s*(import|export)\s+(type\s+)?(?:[^;"'`]*?\bfrom\s*)?["']([^"']+)["']/g;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function resolveLocal(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts"), target]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function importEdges(files: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const source = withoutComments(fs.readFileSync(file, "utf8"));
    const add = (specifier: string, typeOnly: boolean) => {
      const to = resolveLocal(file, specifier);
      if (to?.startsWith(SRC + path.sep)) edges.push({ from: rel(file), to: rel(to), typeOnly });
    };
    for (const match of source.matchAll(STATIC_IMPORT)) add(match[3]!, match[2] !== undefined);
    for (const match of source.matchAll(DYNAMIC_IMPORT)) add(match[1]!, false);
  }
  return edges;
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join("/");

const UNITS = LAYERS.flat();
const layerOf = new Map(LAYERS.flatMap((units, layer) => units.map((unit) => [unit, layer] as const)));

function unitOf(file: string): string | undefined {
  const dir = path.posix.dirname(file);
  let best: string | undefined;
  for (const unit of UNITS) {
    const contains = unit === "." ? dir === "." : dir === unit || dir.startsWith(`${unit}/`);
    if (contains && (best === undefined || unit.length > best.length)) best = unit;
  }
  return best;
}

/** Strongly connected groups of more than one file (Tarjan), i.e. import cycles. */
function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = sourceFiles(SRC);
const edges = importEdges(files);

describe("imports under src/", () => {
  it("are found by the parser (a sanity check that the rules below see real imports)", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual({ from: "main.ts", to: "app/app-context.ts", typeOnly: false });
  });

  it("form no cycle between files, type-only imports included", () => {
    expect(cycles(edges)).toEqual([]);
  });

  it("every folder belongs to a unit of the layering", () => {
    expect(files.map(rel).filter((file) => unitOf(file) === undefined)).toEqual([]);
  });

  it("point from a unit only to units of lower layers", () => {
    const violations = edges.flatMap(({ from, to, typeOnly }) => {
      const fromUnit = unitOf(from)!;
      const toUnit = unitOf(to)!;
      if (fromUnit === toUnit) return [];
      if (layerOf.get(toUnit)! < layerOf.get(fromUnit)!) return [];
      if (typeOnly && TYPE_ONLY_UPWARD[to]?.includes(fromUnit)) return [];
      return [`${from} -> ${to} (${fromUnit} may not import ${toUnit})`];
    });
    expect(violations).toEqual([]);
  });

  it("docs/architecture.md shows these layers", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/architecture.md"), "utf8");
    const shown = /## Layering[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
    const names = (units: readonly string[]) => units.map((unit) => (unit === "." ? "main.ts" : unit));
    const expected = LAYERS.map((units) => (units.length === 1 ? names(units)[0] : `{${names(units).join(", ")}}`)).join(" → ");
    expect(shown?.replace(/\s+/g, " ").trim()).toBe(expected);
  });

  it("docs/architecture.md names only files and folders that exist under src/", () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/architecture.md"), "utf8");
    const named = [...doc.matchAll(/`([a-z0-9-]+(?:\/[a-z0-9.-]+)*(?:\.ts|\/))`/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(40);
    // A name inside a folder's paragraph may be relative to that folder (`model/`, `chain.ts`).
    const known = new Set(files.map(rel).flatMap((file) => {
      const parts = file.split("/");
      return parts.flatMap((_, i) => [parts.slice(i).join("/"), ...(i < parts.length - 1 ? [`${parts.slice(i, -1).join("/")}/`] : [])]);
    }));
    const missing = named.filter((name) => !known.has(name) && !fs.existsSync(path.join(SRC, "..", name)));
    expect(missing).toEqual([]);
  });

  it("the cycle check catches a cycle and the parser reads type-only imports", () => {
    const sample = [
      { from: "a.ts", to: "b.ts", typeOnly: true },
      { from: "b.ts", to: "c.ts", typeOnly: false },
      { from: "c.ts", to: "a.ts", typeOnly: false },
      { from: "c.ts", to: "d.ts", typeOnly: false },
    ];
    expect(cycles(sample)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(edges.some((edge) => edge.typeOnly)).toBe(true);
  });
});
