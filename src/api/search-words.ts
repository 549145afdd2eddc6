import { z } from "@hono/zod-openapi";
import { characters } from "./text.ts";

/**
 * `q` as the search reads it: words, never a query language. A word is a
 * run of letters, digits and private-use characters (with the marks that
 * follow them), as SQLite's unicode61 tokenizer reads text; everything else
 * only separates words. Each word becomes an FTS5 prefix term, quoted, so
 * no text a client sends can be read as FTS5 syntax.
 */

const WORD = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\p{M}]*/gu;

/** Whether `q` holds a word: a `q` of only punctuation, symbols or spaces names no animal to look for. */
function hasWord(q: string): boolean {
  return q.match(WORD) !== null;
}

/**
 * The FTS5 query matching names in which every word of `q` begins a word
 * (`"bel"* "rex"*`): case and accents are folded by the index's own
 * tokenizer, which reads each quoted term too. Undefined when `q` has no
 * word, and so excludes no animal. Should a character be read here as part
 * of a word where the tokenizer separates, the term becomes a phrase, which
 * still matches the name that holds those words in that order.
 */
export function prefixQuery(q: string): string | undefined {
  const words = q.match(WORD);
  if (!words) return undefined;
  return words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(" ");
}

/**
 * The `q` query parameter of a listing searched by name: 1–100 characters
 * holding at least one word. `description` says what it matches.
 */
export function wordsParameter(description: string, example: string) {
  return z
    .string()
    .refine((text) => characters(text) >= 1 && characters(text) <= 100, "Must be 1–100 characters")
    .refine(
      hasWord,
      "Must hold at least one word: letters or digits, not only punctuation, symbols or spaces",
    )
    .optional()
    .openapi({
      param: { name: "q", in: "query", description },
      minLength: 1,
      maxLength: 100,
      example,
    });
}
