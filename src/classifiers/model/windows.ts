/**
 * Long inputs are scored window by window and pooled with max, so one harmful paragraph inside
 * benign text is not averaged away. Windows overlap by half so a phrase cut by one boundary is whole
 * in the next window; boundaries snap to spaces so words are not split.
 */
export interface Window {
  from: number;
  to: number;
}

export interface WindowSpec {
  /** Window length in normalised UTF-16 units. */
  size: number;
  /** Step between window starts. */
  stride: number;
}

function snapBack(text: string, at: number, floor: number): number {
  if (at >= text.length) return text.length;
  // Look back at most 40 units for a space so windows stay close to their nominal size.
  for (let i = at; i > Math.max(floor, at - 40); i--) if (text.charCodeAt(i) === 32) return i;
  return at;
}

export function windowsOf(text: string, spec: WindowSpec): Window[] {
  const n = text.length;
  if (n <= spec.size) return [{ from: 0, to: n }];
  const out: Window[] = [];
  let from = 0;
  for (;;) {
    const to = snapBack(text, from + spec.size, from + 1);
    out.push({ from, to });
    if (to >= n) break;
    let next = snapBack(text, from + spec.stride, from + 1);
    if (next <= from) next = from + spec.stride;
    // The last window is pulled back to a full size instead of scoring a short tail alone.
    if (next + spec.size >= n) {
      const last = Math.max(next, snapBack(text, n - spec.size, from + 1));
      out.push({ from: last, to: n });
      break;
    }
    from = next;
  }
  return out;
}
