/** A Content-Type's media type, lower-cased and without parameters ("Application/JSON; charset=utf-8" -> "application/json"); "" when absent. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}
