import { describe, expect, it } from "vitest";
import { EMPTY_BODY_MESSAGE, invalidJsonMessage, lineAndColumn } from "../../src/moderation/json-syntax.js";

const PREFIX = "The request body is not valid JSON: ";

describe("invalidJsonMessage: where a JSON text JSON.parse refused goes wrong, in the service's words", () => {
  it.each([
    ['{"input":[{"type":"text","text":"hi"},]}', 'unexpected "]" at line 1, column 39; expected a value (JSON allows no comma before "]").'],
    ['{"a":1,}', 'unexpected "}" at line 1, column 8; expected a double-quoted key (JSON allows no comma before "}").'],
    ["{'input':[]}", `unexpected "'" at line 1, column 2; expected a double-quoted key or "}" (JSON strings and keys take double quotes).`],
    ["{input: []}", 'unexpected "i" at line 1, column 2; expected a double-quoted key or "}" (a key must be in double quotes).'],
    ['{"input":[{"type":"text","text":"hi"}', "it ends at line 1, column 38, before its JSON is complete (a string, array or object is not closed, or a value is missing)."],
    ['{"a":1 "b":2}', `unexpected '"' at line 1, column 8; expected "," or "}" (a comma missing before it?).`],
    ['{\n  "a": "x\ny"}', "a raw control character (U+000A) inside a string at line 2, column 10; JSON strings take it escaped (write it as \\n)."],
    ['{"a":"\\x"}', 'an invalid escape "\\x" at line 1, column 7; JSON knows \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX.'],
    ['{"a":"\\u12"}', 'an invalid escape "\\u12" at line 1, column 7; \\u takes four hex digits.'],
    ['{"a":tru}', 'unexpected "}" at line 1, column 9; expected "true".'],
    ['{"a":-}', 'unexpected "}" at line 1, column 7; expected a digit.'],
    ['{"a":1}x', 'unexpected "x" at line 1, column 8; expected the end of the body (one JSON value only).'],
    ['{\n  "input": [\n    {"type": "text", "text": \u201chi\u201d}\n  ]\n}', 'unexpected "\u201c" at line 3, column 30; expected a value (a typographic quote: JSON takes straight double quotes ").'],
    // Columns count code points: two emoji are two columns, not four UTF-16 units.
    ['{"\u{1F642}\u{1F642}":1,,}', 'unexpected "," at line 1, column 9; expected a double-quoted key.'],
  ])("%j", (text, detail) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(invalidJsonMessage(text)).toBe(PREFIX + detail);
  });

  it("says an empty or blank body is empty, with an example body", () => {
    for (const text of ["", " ", "\r\n\t "]) expect(invalidJsonMessage(text)).toBe(EMPTY_BODY_MESSAGE);
    expect(EMPTY_BODY_MESSAGE).toBe('The request body is empty; send a JSON object such as {"input":[{"type":"text","text":"..."}]}.');
  });

  it("never quotes V8's own wording", () => {
    for (const text of ["{", "[1,]", '{"a"}', "nul", "01", '"\\ud83d']) {
      let v8 = "";
      try {
        JSON.parse(text);
      } catch (error) {
        v8 = (error as Error).message;
      }
      if (v8 === "") continue;
      expect(invalidJsonMessage(text)).not.toContain(v8);
      expect(invalidJsonMessage(text)).toMatch(/^The request body is not valid JSON: .+ at line 1, column \d+/);
    }
  });

  it("counts lines at line feeds and columns from 1", () => {
    expect(lineAndColumn("ab\ncd\r\nef", 0)).toBe("line 1, column 1");
    expect(lineAndColumn("ab\ncd\r\nef", 4)).toBe("line 2, column 2");
    expect(lineAndColumn("ab\ncd\r\nef", 7)).toBe("line 3, column 1");
  });
});
