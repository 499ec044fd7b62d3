import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { InputItemSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { outlineJson } from "../base/json-outline.js";
import type { BodyFormat } from "./decode-check.js";
import { walkMessage } from "./wire-walk.js";

/** Fields no request holds, past which a binary message is refused before it is decoded. */
export const MAX_UNKNOWN_FIELDS = 1_000;

/**
 * What a request message holds, read without decoding it, so that a body of millions of items
 * is refused before they are built (30 million empty items, 60 MB: 25.6 s of decoding on the event
 * loop, 2 GB): its input items (Moderate's and TestPolicy's `input`; undefined for a method whose
 * request holds none; 0 for JSON with no "input" list, the decoder reads what is there; for a body
 * the decoder refuses, what it would read before failing), and, for a binary message, the fields
 * its schema does not know, at any depth (wire-walk.ts): one walk for both; and its values: for
 * JSON, its object members and array elements at every depth (json-outline.ts), for a binary
 * message its list elements and map entries at every depth (a policy of eight million empty
 * block-list terms held the event loop 36 s while fromBinary built them).
 */
export function outlineRequest(schema: DescMessage, format: BodyFormat, bytes: Uint8Array): { items: number | undefined; unknownFields: number; values: number } {
  const field = inputItemsField(schema);
  if (!format.json) {
    const walked = walkMessage(schema, field, bytes);
    return { items: field ? walked.items : undefined, unknownFields: walked.unknownFields, values: walked.values };
  }
  // Proto3 JSON takes a field under its JSON name and under its proto name.
  const outlines = (field ? [...new Set([field.jsonName, field.name])] : [""]).map((name) => outlineJson(bytes, name));
  return { items: field ? Math.max(...outlines.map((o) => o.listLength ?? 0)) : undefined, unknownFields: 0, values: outlines[0]!.values };
}

function inputItemsField(schema: DescMessage): DescField | undefined {
  return schema.fields.find((field) => field.fieldKind === "list" && field.listKind === "message" && field.message.typeName === InputItemSchema.typeName);
}
