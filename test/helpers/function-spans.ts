/**
 * A brace scanner for the procedure-length rule (test/core/procedure-length.test.ts): each
 * function's span and its own lines (non-blank lines of its body not inside a nested function).
 * Strings, template literals, comments and regex literals are skipped; a function body is a `{`
 * after `=>`, after `=> (` (an arrow returning an object literal: a table of closures counts as
 * one procedure), or after the parameter list of a `function`, a method or a getter.
 */
export interface Span {
  readonly name: string
  readonly start: number
  readonly end: number
  readonly own: number
}

const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "with", "return", "typeof", "await", "yield", "new", "else", "do", "try", "finally"])

/** The code of `text` with strings, templates, comments and regex literals blanked (newlines kept). */
export const blank = (text: string): string => {
  const out = text.split("")
  let i = 0
  const wipe = (a: number, b: number) => {
    for (let k = a; k < b; k++) if (out[k] !== "\n") out[k] = " "
  }
  let last = ""
  while (i < text.length) {
    const c = text[i]!
    const n = text[i + 1]
    if (c === "/" && n === "/") {
      const e = text.indexOf("\n", i)
      const stop = e < 0 ? text.length : e
      wipe(i, stop)
      i = stop
    } else if (c === "/" && n === "*") {
      const e = text.indexOf("*/", i + 2)
      const stop = e < 0 ? text.length : e + 2
      wipe(i, stop)
      i = stop
    } else if (c === '"' || c === "'" || c === "`") {
      let k = i + 1
      while (k < text.length && text[k] !== c) k += text[k] === "\\" ? 2 : 1
      wipe(i + 1, k)
      i = k + 1
      last = c
    } else if (c === "/" && /[(,=:[!&|?{};+\-*%<>~^]$|^$/.test(last)) {
      let k = i + 1
      let cls = false
      while (k < text.length && text[k] !== "\n" && (cls || text[k] !== "/")) {
        if (text[k] === "\\") k++
        else if (text[k] === "[") cls = true
        else if (text[k] === "]") cls = false
        k++
      }
      wipe(i + 1, k)
      i = k + 1
      last = "/"
    } else {
      if (!/\s/.test(c)) last = c
      i++
    }
  }
  return out.join("")
}

/** The name a function at `k` is bound to: `const x =`, a property `x:` or a method on its line or the line before. */
const nameNear = (code: string, k: number): string => {
  const lineStart = code.lastIndexOf("\n", k - 1) + 1
  const prevStart = code.lastIndexOf("\n", Math.max(0, lineStart - 2)) + 1
  for (const line of [code.slice(lineStart, k), code.slice(prevStart, lineStart)]) {
    const m = /(?:const|let|var)\s+(\w+)/.exec(line) ?? /^\s*(?:async\s+|static\s+|readonly\s+)*(\w+)\s*[:=(<]/.exec(line)
    if (m && !KEYWORDS.has(m[1]!)) return m[1]!
  }
  return "(anonymous)"
}

/** Where an arrow's parameter list opens (the `(` matching the last `)` before its `=>`), so that a name is read before it, not on a parameter's line. */
const paramsStart = (code: string, arrow: number): number => {
  const close = code.lastIndexOf(")", arrow)
  if (close < 0 || code.slice(close + 1, arrow).includes("\n") || /[;{}]/.test(code.slice(close + 1, arrow))) return arrow
  let depth = 0
  for (let j = close; j >= 0; j--) {
    if (code[j] === ")") depth++
    else if (code[j] === "(" && --depth === 0) return j
  }
  return arrow
}

/** The functions of a TypeScript source, with their own line counts. */
export const functionSpans = (text: string): Span[] => {
  const code = blank(text)
  const lineOf: number[] = []
  let line = 1
  for (let k = 0; k < code.length; k++) {
    lineOf.push(line)
    if (code[k] === "\n") line++
  }
  const stack: Array<{ fn: boolean; name: string; start: number; close: string }> = []
  const spans: Array<{ name: string; start: number; end: number }> = []
  let pendingArrowParen = false
  for (let k = 0; k < code.length; k++) {
    const c = code[k]!
    if (c === "{" || c === "(" || c === "[") {
      const before = code.slice(Math.max(0, k - 400), k).trimEnd()
      let fn = false
      let name = "(anonymous)"
      if (c === "{" && (before.endsWith("=>") || (pendingArrowParen && before.endsWith("(")))) {
        fn = true
        name = nameNear(code, paramsStart(code, code.lastIndexOf("=>", k)))
      } else if (c === "{" && before.endsWith(")")) {
        // walk back over the parameter list to the word before it
        let depth = 0
        let j = before.length - 1
        for (; j >= 0; j--) {
          if (before[j] === ")") depth++
          else if (before[j] === "(") {
            depth--
            if (depth === 0) break
          }
        }
        const head = before.slice(0, j).trimEnd()
        const m = /(?:function\*?\s*(\w*)|(?:async\s+|get\s+|set\s+|static\s+|\*\s*)?(\w+)\s*(?:<[^>]*>)?)$/.exec(head)
        const word = m?.[1] ?? m?.[2]
        if (m && (/function\*?\s*\w*$/.test(head) || (word && !KEYWORDS.has(word)))) {
          fn = true
          name = word || nameNear(code, k)
        }
      } else if (c === "{" && /\)\s*:\s*[\w<>[\],\s|.]+$/.test(before) && /\bfunction\b|^\s*\w+\s*\(/.test(before.slice(before.lastIndexOf("\n")))) {
        fn = true
        name = nameNear(code, k)
      }
      pendingArrowParen = c === "(" && before.endsWith("=>")
      stack.push({ fn, name, start: k, close: c === "{" ? "}" : c === "(" ? ")" : "]" })
    } else if (c === "}" || c === ")" || c === "]") {
      const top = stack.pop()
      if (top?.fn) spans.push({ name: top.name, start: top.start, end: k })
    } else if (!/\s/.test(c)) pendingArrowParen = false
  }
  // own lines: each non-blank line goes to the innermost function spanning it
  const owner = new Map<number, number>()
  const sorted = spans.map((s, i) => ({ ...s, i, a: lineOf[s.start]!, b: lineOf[s.end]! })).sort((x, y) => y.b - y.a - (x.b - x.a))
  const lines = text.split("\n")
  for (const s of sorted) for (let l = s.a; l <= s.b; l++) if ((lines[l - 1] ?? "").trim() !== "") owner.set(l, s.i)
  const own = new Map<number, number>()
  for (const i of owner.values()) own.set(i, (own.get(i) ?? 0) + 1)
  return sorted.map((s) => ({ name: s.name, start: s.a, end: s.b, own: own.get(s.i) ?? 0 })).sort((x, y) => x.start - y.start)
}
