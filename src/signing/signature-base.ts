import {
  parseDictionary,
  serializeInnerList,
  isInnerList,
  StructuredFieldError,
  type InnerList,
  type Parameters,
} from "./structured-fields.js";
import { SIGNATURE_ALGORITHM } from "./headers.js";

/** Parameters of one RFC 9421 signature, as we emit and require them. */
export interface SignatureParams {
  /** Covered component identifiers, in order, e.g. "@status", "content-digest". */
  components: string[];
  /** Unix seconds. */
  created: number;
  keyId: string;
  alg: typeof SIGNATURE_ALGORITHM;
}

/** The inner list that is both the Signature-Input member value and the "@signature-params" line. */
export function toSignatureParamsList(params: SignatureParams): InnerList {
  return {
    items: params.components.map((name) => ({ item: { type: "string", value: name }, params: [] })),
    params: [
      ["created", { type: "integer", value: params.created }],
      ["keyid", { type: "string", value: params.keyId }],
      ["alg", { type: "string", value: params.alg }],
    ],
  };
}

/**
 * RFC 9421 section 2.5: one line per covered component, `"name": value`, then the
 * `"@signature-params"` line; lines joined by "\n" with no trailing newline.
 * `values` maps each component name to its already-derived value (e.g. "@status" -> "200").
 */
export function buildSignatureBase(
  paramsList: InnerList,
  values: ReadonlyMap<string, string>,
  /** serializeInnerList(paramsList), when the caller has it already. */
  serializedParams: string = serializeInnerList(paramsList),
): string {
  const lines: string[] = [];
  for (const { item, params } of paramsList.items) {
    if (item.type !== "string" || params.length > 0) throw new SignatureInputError("unsupported component identifier");
    const value = values.get(item.value);
    if (value === undefined) throw new SignatureInputError(`covered component "${item.value}" is missing`);
    if (/[\r\n]/.test(value)) throw new SignatureInputError(`covered component "${item.value}" holds a line break`);
    lines.push(`"${item.value}": ${value}`);
  }
  lines.push(`"@signature-params": ${serializedParams}`);
  return lines.join("\n");
}

export class SignatureInputError extends Error {
  override readonly name = "SignatureInputError";
}

export interface ParsedSignature {
  label: string;
  paramsList: InnerList;
  params: SignatureParams;
  signature: Uint8Array;
}

/**
 * Reads the Signature-Input and Signature headers and returns the signature under `label`
 * (or the only/first one present in both), with the parameters we require checked.
 */
export function parseSignatureHeaders(
  signatureInput: string | null | undefined,
  signature: string | null | undefined,
  label?: string,
): ParsedSignature {
  if (!signatureInput) throw new SignatureInputError("the response has no Signature-Input header");
  if (!signature) throw new SignatureInputError("the response has no Signature header");
  let inputs, signatures;
  try {
    inputs = parseDictionary(signatureInput);
    signatures = parseDictionary(signature);
  } catch (error) {
    if (error instanceof StructuredFieldError) throw new SignatureInputError(`malformed signature header: ${error.message}`);
    throw error;
  }
  const chosen = label ?? [...inputs.keys()].find((key) => signatures.has(key));
  if (chosen === undefined) throw new SignatureInputError("Signature and Signature-Input share no label");
  const input = inputs.get(chosen);
  const sig = signatures.get(chosen);
  if (!input || !isInnerList(input)) throw new SignatureInputError(`Signature-Input has no inner list for "${chosen}"`);
  if (!sig || isInnerList(sig) || sig.item.type !== "bytes") throw new SignatureInputError(`Signature has no byte sequence for "${chosen}"`);

  const components = input.items.map(({ item, params }) => {
    if (item.type !== "string" || params.length > 0) throw new SignatureInputError("unsupported component identifier");
    return item.value;
  });
  if (new Set(components).size !== components.length) throw new SignatureInputError("a component is covered twice");
  const created = param(input.params, "created");
  const keyId = param(input.params, "keyid");
  const alg = param(input.params, "alg");
  if (created?.type !== "integer") throw new SignatureInputError("Signature-Input lacks an integer created parameter");
  if (keyId?.type !== "string") throw new SignatureInputError("Signature-Input lacks a keyid parameter");
  if (alg?.type !== "string" || alg.value !== SIGNATURE_ALGORITHM) {
    throw new SignatureInputError(`Signature-Input alg must be "${SIGNATURE_ALGORITHM}"`);
  }
  return {
    label: chosen,
    paramsList: input,
    params: { components, created: created.value, keyId: keyId.value, alg: SIGNATURE_ALGORITHM },
    signature: sig.item.value,
  };
}

function param(params: Parameters, name: string) {
  return params.find(([n]) => n === name)?.[1];
}
