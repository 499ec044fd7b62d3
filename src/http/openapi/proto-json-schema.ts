import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";

/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

interface ProtoSchemaOptions {
  /**
   * "request": what the server accepts (no field required unless listed, no unknown fields);
   * "response": what it sends with alwaysEmitImplicit (every implicit-presence field present,
   * message and optional fields only when set).
   */
  direction: "request" | "response";
  /** Fields a request must have, by message type name and proto field name. */
  requiredInRequest?: Record<string, readonly string[]>;
  /**
   * Limits the server checks that the proto cannot say (counts, lengths, allowed strings), by
   * message type name and proto field name; merged into the field's schema in requests.
   */
  limitsInRequest?: Record<string, Record<string, JsonSchema>>;
}

/**
 * JSON Schemas for protobuf messages in their JSON form with proto field names (the form the
 * JSON routes send and accept), derived from the descriptors in gen/, so the OpenAPI document
 * follows the .proto files instead of restating them. Each message becomes a named component
 * ("#/components/schemas/<Name>"), added to `components` along with every message it uses.
 */
export function messageSchema(message: DescMessage, components: Record<string, JsonSchema>, options: ProtoSchemaOptions): JsonSchema {
  const name = componentName(message, options);
  if (!(name in components)) {
    components[name] = {}; // placeholder first: messages may refer to themselves
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of message.fields) {
      const limits = options.direction === "request" ? options.limitsInRequest?.[message.typeName]?.[field.name] : undefined;
      properties[field.name] = { ...fieldSchema(field, components, options), ...limits };
      const implicit = field.fieldKind === "list" || field.fieldKind === "map" || (field.fieldKind !== "message" && !field.proto.proto3Optional);
      if (options.direction === "response" ? implicit : options.requiredInRequest?.[message.typeName]?.includes(field.name)) required.push(field.name);
    }
    components[name] = { type: "object", properties, required, additionalProperties: false };
  }
  return { $ref: `#/components/schemas/${name}` };
}

function componentName(message: DescMessage, options: ProtoSchemaOptions): string {
  // A message used both ways gets two components: the request form requires less.
  return options.direction === "request" ? `${message.name}Input` : message.name;
}

function fieldSchema(field: DescField, components: Record<string, JsonSchema>, options: ProtoSchemaOptions): JsonSchema {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar);
    case "enum":
      return { type: "string", enum: field.enum.values.map((v) => v.name) };
    case "message":
      return messageSchema(field.message, components, options);
    case "list":
      return {
        type: "array",
        items: field.listKind === "message" ? messageSchema(field.message, components, options)
          : field.listKind === "enum" ? { type: "string", enum: field.enum.values.map((v) => v.name) }
          : scalarSchema(field.scalar),
      };
    case "map":
      return {
        type: "object",
        additionalProperties: field.mapKind === "message" ? messageSchema(field.message, components, options)
          : field.mapKind === "enum" ? { type: "string", enum: field.enum.values.map((v) => v.name) }
          : scalarSchema(field.scalar),
      };
  }
}

/** The protobuf JSON mapping: 64-bit integers are strings, bytes are base64. */
function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", minimum: -2147483648, maximum: 2147483647 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", minimum: 0, maximum: 4294967295 };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    default:
      return { type: "string", pattern: "^-?[0-9]+$" }; // int64 family
  }
}
