/** One sample line of the Prometheus text format: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses exposition text (the subset prom-client writes: no timestamps, escaped quotes in labels). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = value!.replace(/\\(.)/g, "$1");
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`; 0 when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

export async function scrape(url: string): Promise<{ samples: Sample[]; contentType: string | null; text: string }> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const text = await response.text();
  return { samples: parseExposition(text), contentType: response.headers.get("content-type"), text };
}
