import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** fromBinary's default (makeReadContext in @bufbuild/protobuf). */
const RECURSION_LIMIT = 100;

/**
 * What the binary message `bytes` holds, as fromBinary would read it, but without building
 * anything: the top-level entries of the list field `itemsField` (0 without one), the list
 * elements and map entries at any depth (`values`), and the fields the schema does not know, at any depth (fromBinary keeps them as unknown fields: 16 MB of them
 * cost it about 2.2 s, an audit of session 40, while no real request holds any). The walk reads
 * tags, lengths and varints, and allocates nothing per field. A scan of the top-level tags alone
 * would not do: fromBinary reads a known field by its type whatever wire type its tag says, and
 * reads a nested message's fields past the length it announced, so millions of items could hide
 * from such a scan inside what it took for the payload of another field. The walk follows
 * fromBinary's reading step by step (@bufbuild/protobuf 2's from-binary.js, with its BinaryReader
 * for the varints); test/rpc/wire-walk.test.ts holds the two to the same count on mutated bodies.
 * Where fromBinary would throw, the walk stops: the counts so far are what fromBinary would have
 * read before failing.
 */
export function walkMessage(schema: DescMessage, itemsField: DescField | undefined, bytes: Uint8Array): { items: number; unknownFields: number; values: number } {
  const walk = new WireWalk(bytes, itemsField);
  try {
    walk.message(planOf(schema), bytes.byteLength, 0);
  } catch {
    // fromBinary refuses these bytes at this point.
  }
  return { items: walk.items, unknownFields: walk.unknownFields, values: walk.values };
}

/** How fromBinary reads a field (its compileFieldReader), whatever the tag's wire type. */
const enum Read {
  Scalar,
  Enum,
  Message,
  ScalarList,
  Map,
}

interface FieldPlan {
  field: DescField;
  read: Read;
  /** The scalar of a Scalar or ScalarList field (enums read as INT32), or a map's key. */
  scalar: ScalarType;
  /** The message of a Message field (single or list), or of a map's message values. */
  child: MessagePlan | undefined;
  /** A Message field sent as a group (delimited encoding): read to its end-group tag. */
  delimited: boolean;
  /** A map's values: Read.Scalar, Read.Enum or Read.Message. */
  mapValue: Read;
  mapValueScalar: ScalarType;
}

interface MessagePlan {
  fields: Map<number, FieldPlan>;
}

class WireWalk {
  items = 0;
  unknownFields = 0;
  /** List elements and map entries, at any depth: each one an object or slot fromBinary makes. */
  values = 0;
  private readonly reader: BinaryReader;
  // The last tag read (tag() would allocate an array for the pair).
  private fieldNo = 0;
  private wireType = 0;

  constructor(private readonly bytes: Uint8Array, private readonly itemsField: DescField | undefined) {
    this.reader = new BinaryReader(bytes);
  }

  /** A message whose fields run until `end` (a length-delimited one, or the whole body). */
  message(plan: MessagePlan, end: number, depth: number): void {
    if (++depth > RECURSION_LIMIT) throw new Error("recursion limit");
    while (this.reader.pos < end) {
      this.tag();
      const field = plan.fields.get(this.fieldNo);
      if (field === undefined) this.unknown(depth);
      else this.field(field, depth);
    }
  }

  private group(plan: MessagePlan, groupNo: number, depth: number): void {
    if (++depth > RECURSION_LIMIT) throw new Error("recursion limit");
    while (this.reader.pos < this.reader.len) {
      this.tag();
      if (this.wireType === WireType.EndGroup) break;
      const field = plan.fields.get(this.fieldNo);
      if (field === undefined) this.unknown(depth);
      else this.field(field, depth);
    }
    if (this.wireType !== WireType.EndGroup || this.fieldNo !== groupNo) throw new Error("invalid end group tag");
  }

  /** A field the schema does not know, at the last tag: counted and skipped. */
  private unknown(depth: number): void {
    this.unknownFields++;
    this.skip(this.wireType, this.fieldNo, RECURSION_LIMIT - depth);
  }

  private field(plan: FieldPlan, depth: number): void {
    const reader = this.reader;
    switch (plan.read) {
      case Read.Scalar:
        return this.scalar(plan.scalar);
      case Read.Enum:
        return void reader.uint32();
      case Read.Message:
        if (depth === 1 && plan.field === this.itemsField) this.items++;
        if (plan.field.fieldKind === "list") this.values++;
        return this.child(plan, depth);
      case Read.ScalarList:
        if (this.wireType === WireType.LengthDelimited && plan.scalar !== ScalarType.STRING && plan.scalar !== ScalarType.BYTES) {
          const end = reader.uint32() + reader.pos;
          while (reader.pos < end) {
            this.values++;
            this.scalar(plan.scalar);
          }
          return;
        }
        this.values++;
        return this.scalar(plan.scalar);
      case Read.Map:
        this.values++;
        return this.mapEntry(plan, depth);
    }
  }

  private child(plan: FieldPlan, depth: number): void {
    if (plan.delimited) return this.group(plan.child!, plan.field.number, depth);
    const length = this.length();
    // An empty message holds nothing to walk (the recursion check aside): no call for it.
    if (length === 0 && depth < RECURSION_LIMIT) return;
    this.message(plan.child!, length + this.reader.pos, depth);
  }

  private mapEntry(plan: FieldPlan, depth: number): void {
    const reader = this.reader;
    const end = reader.uint32() + reader.pos;
    while (reader.pos < end) {
      this.tag();
      if (this.fieldNo === 1) this.scalar(plan.scalar);
      else if (this.fieldNo !== 2) this.unknown(depth);
      else if (plan.mapValue === Read.Message) this.message(plan.child!, reader.uint32() + reader.pos, depth);
      else if (plan.mapValue === Read.Enum) reader.uint32();
      else this.scalar(plan.mapValueScalar);
    }
  }

  /** Moves past a scalar as BinaryReader's reader for its type does (strings and bytes without copying them). */
  private scalar(type: ScalarType): void {
    const reader = this.reader;
    switch (type) {
      case ScalarType.STRING:
      case ScalarType.BYTES: {
        // Not `pos += uint32()`: that would add the length to the position from before the length.
        const length = reader.uint32();
        reader.pos += length;
        return this.assertBounds();
      }
      case ScalarType.BOOL:
        return void reader.bool();
      case ScalarType.DOUBLE:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        return void reader.double();
      case ScalarType.FLOAT:
      case ScalarType.FIXED32:
      case ScalarType.SFIXED32:
        return void reader.fixed32();
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
        return void reader.uint64();
      default:
        return void reader.uint32();
    }
  }

  /** BinaryReader.uint32() for a length, a one-byte one (under 128) read without a call. */
  private length(): number {
    const first = this.bytes[this.reader.pos]!;
    if (first < 0x80) {
      this.reader.pos++;
      return first;
    }
    return this.reader.uint32();
  }

  /** BinaryReader.tag(), keeping the pair in fields instead of a new array. */
  private tag(): void {
    // One-byte tags (fields 1 to 15) without a call: a body of millions of items is mostly these.
    const first = this.bytes[this.reader.pos]!;
    if (first < 0x80 && first >= 8 && (first & 7) <= 5) {
      this.reader.pos++;
      this.fieldNo = first >>> 3;
      this.wireType = first & 7;
      return;
    }
    const start = this.reader.pos;
    const tag = this.reader.uint32();
    const read = this.reader.pos - start;
    if (read > 5 || (read === 5 && this.bytes[this.reader.pos - 1]! > 0x0f)) throw new Error("illegal tag");
    this.fieldNo = tag >>> 3;
    this.wireType = tag & 7;
    if (this.fieldNo <= 0 || this.wireType > 5) throw new Error("illegal tag");
  }

  /** BinaryReader.skip(), without the subarray it returns. */
  private skip(wireType: number, fieldNo: number, recursionLimit: number): void {
    const reader = this.reader;
    switch (wireType) {
      case WireType.Varint:
        while (this.bytes[reader.pos++]! & 0x80) {
          // a continuation byte
        }
        break;
      case WireType.Bit64:
        reader.pos += 8;
        break;
      case WireType.Bit32:
        reader.pos += 4;
        break;
      case WireType.LengthDelimited: {
        const length = reader.uint32();
        reader.pos += length;
        break;
      }
      case WireType.StartGroup:
        if (recursionLimit <= 0) throw new Error("recursion limit");
        for (;;) {
          this.tag();
          if (this.wireType === WireType.EndGroup) {
            if (this.fieldNo !== fieldNo) throw new Error("invalid end group tag");
            break;
          }
          this.skip(this.wireType, this.fieldNo, recursionLimit - 1);
        }
        break;
      default:
        throw new Error("bad wire type");
    }
    this.assertBounds();
  }

  private assertBounds(): void {
    if (this.reader.pos > this.reader.len) throw new RangeError("premature EOF");
  }
}

const PLANS = new WeakMap<DescMessage, MessagePlan>();

/** How to walk a message's fields, made once per message type (registered before its fields, for recursive types). */
function planOf(desc: DescMessage): MessagePlan {
  let plan = PLANS.get(desc);
  if (plan) return plan;
  plan = { fields: new Map() };
  PLANS.set(desc, plan);
  for (const field of desc.fields) plan.fields.set(field.number, fieldPlan(field));
  return plan;
}

function fieldPlan(field: DescField): FieldPlan {
  const plan: FieldPlan = { field, read: Read.Scalar, scalar: ScalarType.INT32, child: undefined, delimited: false, mapValue: Read.Scalar, mapValueScalar: ScalarType.INT32 };
  switch (field.fieldKind) {
    case "scalar":
      return { ...plan, scalar: field.scalar };
    case "enum":
      return { ...plan, read: Read.Enum };
    case "message":
      return { ...plan, read: Read.Message, child: planOf(field.message), delimited: field.delimitedEncoding };
    case "list":
      if (field.listKind === "message") return { ...plan, read: Read.Message, child: planOf(field.message), delimited: field.delimitedEncoding };
      return { ...plan, read: Read.ScalarList, scalar: field.listKind === "enum" ? ScalarType.INT32 : field.scalar };
    case "map":
      if (field.mapKind === "message") return { ...plan, read: Read.Map, scalar: field.mapKey, mapValue: Read.Message, child: planOf(field.message) };
      if (field.mapKind === "enum") return { ...plan, read: Read.Map, scalar: field.mapKey, mapValue: Read.Enum };
      return { ...plan, read: Read.Map, scalar: field.mapKey, mapValueScalar: field.scalar };
  }
}
