import { z } from "@hono/zod-openapi";

/*
 * The character classes of a name, spelt out code point by code point: `\s`
 * means different things in different regular-expression engines, and the
 * OpenAPI document's pattern must mean the same to every validator that
 * reads it as it does to this server.
 */

/** White space as JavaScript's `trim()` knows it, less what CONTROL already covers. */
const WHITE_SPACE =
  "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
/** C0 and C1 control characters: NUL, ESC, line breaks, NEL … */
const CONTROL = "\\u0000-\\u001f\\u007f-\\u009f";
/** Read with the `u` flag (as JSON Schema validators do), this matches only a lone surrogate. */
const LONE_SURROGATE = "\\ud800-\\udfff";

const ALLOWED = `[^${CONTROL}${LONE_SURROGATE}]`;
const VISIBLE = `[^${CONTROL}${LONE_SURROGATE}${WHITE_SPACE}]`;

/** A name: allowed characters only, at least one of them not white space. */
const NAME_PATTERN = new RegExp(`^${ALLOWED}*${VISIBLE}${ALLOWED}*$`, "u");
const CONTROL_CHARACTER = new RegExp(`[${CONTROL}]`, "u");
const VISIBLE_CHARACTER = new RegExp(VISIBLE, "u");

/** Characters as JSON Schema's minLength and maxLength count them: code points, not UTF-16 units. */
export function characters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * A name as people type it: 1 to `max` characters, well-formed Unicode, no
 * control characters, not only white space; stored as sent. The document
 * states all of it as `minLength`, `maxLength` and one `pattern`; the
 * checks below say which part failed.
 */
export function nameSchema(max: number) {
  return z
    .string()
    .superRefine((text, ctx) => {
      const refuse = (message: string) => ctx.addIssue({ code: "custom", message });
      const length = characters(text);
      if (length < 1 || length > max) refuse(`Must be 1–${max} characters`);
      else if (!text.isWellFormed())
        refuse("Must be well-formed Unicode: a lone surrogate is not a character");
      else if (CONTROL_CHARACTER.test(text)) refuse("Must not contain control characters");
      else if (!VISIBLE_CHARACTER.test(text))
        refuse("Must contain a character other than white space");
      else if (!NAME_PATTERN.test(text)) refuse("Must be a name");
    })
    .openapi({ minLength: 1, maxLength: max, pattern: NAME_PATTERN.source });
}

/** Control characters but tabs and line breaks: what plain text may not hold. */
const TEXT_CONTROL = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f";
/** Plain text: well-formed Unicode without control characters other than tabs and line breaks. */
const PLAIN_TEXT_PATTERN = new RegExp(`^[^${TEXT_CONTROL}${LONE_SURROGATE}]*$`, "u");

/**
 * Plain text of at most `max` characters (a description): line breaks and
 * tabs allowed, other control characters and lone surrogates refused;
 * stored as sent.
 */
export function plainTextSchema(max: number) {
  return z
    .string()
    .superRefine((text, ctx) => {
      const refuse = (message: string) => ctx.addIssue({ code: "custom", message });
      if (characters(text) > max) refuse(`Must be at most ${max} characters`);
      else if (!text.isWellFormed())
        refuse("Must be well-formed Unicode: a lone surrogate is not a character");
      else if (!PLAIN_TEXT_PATTERN.test(text))
        refuse("Must not contain control characters other than tabs and line breaks");
    })
    .openapi({ maxLength: max, pattern: PLAIN_TEXT_PATTERN.source });
}
