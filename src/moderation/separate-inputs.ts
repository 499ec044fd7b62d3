import type { ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";

/** Requests whose text items are separate inputs, never judged together. */
const apart = new WeakSet<ModerateRequest>();

/**
 * Marks `request` as separate inputs (OpenAI's `input` as an array of strings): no combined layer
 * is judged for it. Its answer has no place for that layer, and judging it anyway cost a model
 * pass and, where only it flagged, metered the request as flagged while every result showed
 * unflagged (found by an audit). A mark on the message itself, not a proto field: callers of the
 * API cannot set it.
 */
export function judgeApart(request: ModerateRequest): ModerateRequest {
  apart.add(request);
  return request;
}

export function isJudgedApart(request: ModerateRequest): boolean {
  return apart.has(request);
}
