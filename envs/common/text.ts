/**
 * Word splitting for vocabularies and for reading reasoning text: whitespace separates words and
 * each of `< > / [ ] ( ) , . : ; ?` and a possessive "'s" is a word of its own (as the tiny model's word-level tokenizer,
 * plugins/tinylm/tokenizer.ts, splits them, so a vocabulary built here covers its words).
 */
const SPECIAL = /([<>/[\](),.:;?])/g

const POSSESSIVE = /(\S)'s(?=$|[\s<>/[\](),.:;?])/g

export const splitWords = (text: string): string[] =>
  text
    .replace(POSSESSIVE, "$1 's")
    .replace(SPECIAL, " $1 ")
    .split(/\s+/)
    .filter((w) => w.length > 0)

/** Sorted unique words of the given texts (a stable vocabulary order). */
export const vocabularyOf = (...texts: ReadonlyArray<string>): string[] => {
  const set = new Set<string>()
  for (const t of texts) for (const w of splitWords(t)) set.add(w)
  return [...set].sort()
}

export const DIGITS = "0 1 2 3 4 5 6 7 8 9"
