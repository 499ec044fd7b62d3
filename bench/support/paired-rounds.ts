import path from "node:path";

/** The middle value (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * This checkout's service and each BENCH_BASELINE checkout's, measured in alternating rounds
 * (the order reversed every other round), so that one slow process or a noisy neighbour does not
 * decide a side. Returns each configuration's figures by name, this checkout first.
 */
export async function pairedRounds<Figures>(
  rounds: number,
  measure: (cwd: string | undefined) => Promise<Figures>,
  onRound: (round: number, name: string, figures: Figures) => void,
): Promise<Map<string, Figures[]>> {
  const baselines = (process.env.BENCH_BASELINE ?? "").split(",").filter(Boolean).map((dir) => path.resolve(dir));
  const configurations: Array<[string, string | undefined]> = [["this checkout", undefined], ...baselines.map((dir): [string, string] => [`baseline ${path.basename(dir)}`, dir])];
  const results = new Map<string, Figures[]>(configurations.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, cwd] of round % 2 === 0 ? configurations : [...configurations].reverse()) {
      const figures = await measure(cwd);
      results.get(name)!.push(figures);
      onRound(round + 1, name, figures);
    }
  }
  return results;
}
