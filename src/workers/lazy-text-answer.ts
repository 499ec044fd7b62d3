import { ModerateResponseSchema, type CombinedResult, type ItemResult, type ModerateResponse, type NotEvaluatedItems } from "../../gen/moderation/v1/moderation_pb.js";

/**
 * The JSON route's answer message for a call a compute worker answered whole. The route sends the
 * JSON text the worker rendered and signed (src/signing/signed-ahead.ts), so on the event loop
 * usually only `flagged` is read (metering); the item results are built on first read, by `build`
 * (worker-answers.ts reads them back from that JSON). Building them for every answer, unread, and
 * sending the verdicts across threads to do so, cost about 4 µs of CPU per request under load
 * (allocation and the garbage collection it brings), some 5% of the total.
 *
 * It reads like any ModerateResponse through its fields (protobuf-es, toJson, the JSON renderer
 * and the interceptors read fields by name). `results` is an accessor on the class, so an object
 * spread, JSON.stringify or structuredClone drops it; `combined` and `notEvaluated` are own
 * accessors, present only when the answer has them (`hasCombined`, `hasNotEvaluated`), since protobuf-es counts a message field as set only
 * when it is an own property.
 */
export class LazyTextAnswer implements ModerateResponse {
  readonly $typeName = ModerateResponseSchema.typeName;
  #full: ModerateResponse | undefined;
  readonly #build: () => ModerateResponse;

  declare readonly combined?: CombinedResult;
  declare readonly notEvaluated?: NotEvaluatedItems;

  constructor(readonly id: string, readonly model: string, readonly flagged: boolean, hasCombined: boolean, build: () => ModerateResponse, hasNotEvaluated = false) {
    this.#build = build;
    if (hasCombined) Object.defineProperty(this, "combined", { get: () => this.#materialised().combined, enumerable: true });
    if (hasNotEvaluated) Object.defineProperty(this, "notEvaluated", { get: () => this.#materialised().notEvaluated, enumerable: true });
  }

  get results(): ItemResult[] {
    return this.#materialised().results;
  }

  #materialised(): ModerateResponse {
    this.#full ??= this.#build();
    return this.#full;
  }
}
