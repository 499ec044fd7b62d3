/** Escapes text for HTML bodies and quoted attributes. Every dynamic value goes through it. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function formatTime(ms: number | null): string {
  if (ms === null) return "never";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

export function csrfField(csrf: string): string {
  return `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;
}
