import { ACCOUNT_HEADER, ROUTE_HEADER } from "./headers.js";

/**
 * Who asked what, as a signature binds it beside the request's digest (docs/signing.md): the
 * endpoint called, and the account whose live key called it. Every answer of an API endpoint
 * carries its route; those made after the key was found live carry the account too.
 */
export interface SignatureScope {
  /** The JSON route's path or the RPC method's path. */
  route: string;
  /** The caller's account id; undefined before (or without) a live key. */
  account?: string | undefined;
}

/** The scope's covered fields, in the order they are signed (after the fixed components). */
export function scopeFields(scope: SignatureScope | undefined): Array<[string, string]> {
  if (scope === undefined) return [];
  return scope.account === undefined ? [[ROUTE_HEADER, scope.route]] : [[ROUTE_HEADER, scope.route], [ACCOUNT_HEADER, scope.account]];
}

/** An RPC method's route: its path, "/<package.Service>/<Method>". */
export function rpcRoute(method: { parent: { typeName: string }; name: string }): string {
  return `/${method.parent.typeName}/${method.name}`;
}
