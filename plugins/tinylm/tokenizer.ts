/**
 * Word-level tokenizer built from an env vocabulary (PolicyContext.vocabulary).
 *
 * Words are split as envs/common/text.ts splits them (whitespace; each of `< > / [ ] ( ) , . : ; ?`
 * alone, and a possessive "'s"), except that the tags `<think> </think> <answer> </answer>` stay
 * one token, newlines are a token, and numbers become single digits: the first digit as "d", the following ones as "##d"
 * (WordPiece-style continuation), so "45" → "4" "##5" and decodes back to "45".
 * A word that is not in the vocabulary but whose every character is falls back to its characters
 * (as byte-level BPE falls back to bytes): a grid row written as RAGEN renders FrozenLake, "_P_G",
 * reads as the cells "_" "P" "_" "G" — the tokens the tiny model saw when envs spaced the cells.
 * Envs write plain text for any LLM; this is where it is shaped for the tiny model.
 * Order is fixed: specials, tags, newline, digits, continuation digits, then the sorted words.
 */
import { ANSWER_CLOSE, ANSWER_OPEN, THINK_CLOSE, THINK_OPEN } from "../../core/contracts/index.ts"

export const PAD = "<pad>"
export const UNK = "<unk>"
export const EOS = "<eos>"
export const NEWLINE = "\n"
const TAGS = [THINK_OPEN, THINK_CLOSE, ANSWER_OPEN, ANSWER_CLOSE]
const DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
const CONT = DIGITS.map((d) => `##${d}`)

const tagRe = /(<\/?(?:think|answer)>)/
const punct = /([<>/[\](),.:;?])/g
/** English possessive "'s" is a word of its own ("Mia's" → "Mia" "'s"). */
const possessive = /(\S)'s(?=$|[\s<>/[\](),.:;?])/g
const digitsRe = /^[0-9]+$/

export interface TokenizerJson {
  readonly kind: "word-v1"
  readonly words: ReadonlyArray<string>
}

export class Tokenizer {
  readonly words: ReadonlyArray<string>
  private readonly ids: Map<string, number>
  readonly pad: number
  readonly unk: number
  readonly eos: number
  readonly newline: number

  constructor(words: ReadonlyArray<string>) {
    this.words = words
    this.ids = new Map(words.map((w, i) => [w, i]))
    this.pad = this.ids.get(PAD)!
    this.unk = this.ids.get(UNK)!
    this.eos = this.ids.get(EOS)!
    this.newline = this.ids.get(NEWLINE)!
  }

  /** Build from an env vocabulary; duplicates and tags in it are ignored. */
  static fromVocabulary(vocabulary: ReadonlyArray<string>): Tokenizer {
    const fixed = [PAD, UNK, EOS, ...TAGS, NEWLINE, ...DIGITS, ...CONT]
    const seen = new Set(fixed)
    const rest = new Set<string>()
    for (const entry of vocabulary) {
      for (const w of splitText(entry)) if (!seen.has(w) && !digitsRe.test(w) && w !== NEWLINE) rest.add(w)
    }
    return new Tokenizer([...fixed, ...[...rest].sort()])
  }

  static fromJson(j: TokenizerJson): Tokenizer {
    return new Tokenizer(j.words)
  }

  toJson(): TokenizerJson {
    return { kind: "word-v1", words: this.words }
  }

  get size(): number {
    return this.words.length
  }

  id(word: string): number {
    return this.ids.get(word) ?? this.unk
  }

  encode(text: string): Int32Array {
    const out: number[] = []
    for (const w of splitText(text)) {
      if (digitsRe.test(w)) {
        out.push(this.id(w[0]!))
        for (let i = 1; i < w.length; i++) out.push(this.id(`##${w[i]}`))
      } else {
        const id = this.ids.get(w)
        if (id !== undefined) out.push(id)
        else {
          const chars = Array.from(w)
          if (chars.length > 1 && chars.every((ch) => this.ids.has(ch))) for (const ch of chars) out.push(this.ids.get(ch)!)
          else out.push(this.unk)
        }
      }
    }
    return Int32Array.from(out)
  }

  /** Words joined by spaces, newlines kept, continuation digits glued; stops at <eos>. */
  decode(tokens: ArrayLike<number>): string {
    let s = ""
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!
      if (t === this.eos || t === this.pad) break
      const w = this.words[t] ?? UNK
      if (w === NEWLINE) s += "\n"
      else if (w.startsWith("##")) s += w.slice(2)
      else s += s.length === 0 || s.endsWith("\n") ? w : ` ${w}`
    }
    return s
  }
}

/** Split text into words (newlines kept as words); tags are not broken apart. */
export const splitText = (text: string): string[] => {
  const out: string[] = []
  const lines = text.split("\n")
  for (let li = 0; li < lines.length; li++) {
    if (li > 0) out.push(NEWLINE)
    for (const part of lines[li]!.split(tagRe)) {
      if (part.length === 0) continue
      if (tagRe.test(part) && TAGS.includes(part)) out.push(part)
      else for (const w of part.replace(possessive, "$1 's").replace(punct, " $1 ").split(/\s+/)) if (w.length > 0) out.push(w)
    }
  }
  return out
}
