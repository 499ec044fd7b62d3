import { create } from "@bufbuild/protobuf";
import {
  ListSigningKeysResponseSchema,
  SigningKeySchema,
  type ListSigningKeysRequest,
  type ListSigningKeysResponse,
} from "../../gen/moderation/v1/moderation_pb.js";
import type { SigningKeyRing } from "../signing/key-ring.js";

/** ListSigningKeys: the same keys, in the same order, as /.well-known/jwks.json. Needs no API key. */
export function createListSigningKeys(deps: { keys: Pick<SigningKeyRing, "publishedKeys"> }) {
  return (_request: ListSigningKeysRequest): ListSigningKeysResponse =>
    create(ListSigningKeysResponseSchema, {
      keys: deps.keys.publishedKeys.map((key) =>
        create(SigningKeySchema, {
          kid: key.kid,
          kty: "OKP",
          crv: "Ed25519",
          x: key.x,
          status: key.status,
          createdAt: BigInt(key.createdAt),
        }),
      ),
    });
}
