// autocannon ships no types; this is the slice the benchmark scripts use.
declare module "autocannon" {
  interface Histogram { average: number; mean: number; p50: number; p90: number; p97_5: number; p99: number; max: number; total: number }
  interface Result { requests: Histogram; latency: Histogram; throughput: Histogram; errors: number; timeouts: number; non2xx: number; [key: string]: unknown }
  interface Options {
    url: string; method?: string; headers?: Record<string, string>; body?: string | Buffer;
    connections?: number; duration?: number; amount?: number; pipelining?: number; [key: string]: unknown;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
