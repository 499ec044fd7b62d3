/** A Content-Type's media type, lower-cased and without parameters ("Application/JSON; charset=utf-8" -> "application/json"); "" when absent. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The first charset parameter of a Content-Type, unquoted and lower-cased; undefined when it names none. */
export function charsetOf(header: string | null | undefined): string | undefined {
  if (!header?.includes(";")) return undefined;
  for (const parameter of header.split(";").slice(1)) {
    const [name, value] = parameter.split("=", 2);
    if (name?.trim().toLowerCase() === "charset" && value !== undefined) return value.trim().replace(/^"(.*)"$/, "$1").toLowerCase();
  }
  return undefined;
}

/** Whether a charset parameter (charsetOf's) is absent or UTF-8, the only one the service reads. */
export function isUtf8OrUnset(charset: string | undefined): charset is "utf-8" | "utf8" | undefined {
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}
