/**
 * Schema's failure text in the user's words: `Expected number | undefined, got "abc"\n  at ["p"]`
 * becomes `p: got "abc"; expected a number`, one clause per issue, with no Schema vocabulary
 * (`| undefined` of an optional field, "excess property", "Missing key").
 */

/** `["a"]["b"][0]` → `a.b[0]`. */
const fmtAt = (at: string): string =>
  at
    .replace(/\["([^"]*)"\]/g, ".$1")
    .replace(/\[(\d+)\]/g, "[$1]")
    .replace(/^\./, "")

const literalList = (s: string): string | undefined => {
  const parts = s.split(" | ")
  if (parts.length < 2 || !parts.every((p) => /^(".*"|-?[\d.]+|true|false)$/.test(p))) return undefined
  return `one of ${parts.join(", ")}`
}

/** What Schema says it expected, in plain words. */
export const plainExpected = (raw: string): string => {
  const s = raw.replace(/ \| undefined$/, "").trim()
  const words: Record<string, string> = { number: "a number", string: "a string", boolean: "true or false", "an integer": "a whole number" }
  if (words[s]) return words[s]!
  const between = /^a value between (\S+) and (\S+)$/.exec(s)
  const length = /^a value with a length of at least (\d+)$/.exec(s)
  if (length) return `at least ${length[1]} ${length[1] === "1" ? "value" : "values"}`
  if (between) return `a number from ${between[1]} to ${between[2]}`
  const cmp = /^a value (greater|less) than( or equal to)? (\S+)$/.exec(s)
  if (cmp) return `a number ${cmp[1] === "greater" ? (cmp[2] ? "≥" : ">") : cmp[2] ? "≤" : "<"} ${cmp[3]}`
  return literalList(s) ?? s
}

/** One issue's sentence (`Expected X, got Y` / `Missing key` / `Expected no excess property`). */
const plainClause = (text: string): string => {
  if (text === "Missing key") return "missing; this field is required"
  if (text.startsWith("Expected no excess property") || text.startsWith("Unexpected key")) return "unknown option"
  const m = /^Expected (.*?)(?:, got (.*))?$/.exec(text)
  if (!m) return text
  return m[2] === undefined ? `expected ${plainExpected(m[1]!)}` : `got ${m[2]}; expected ${plainExpected(m[1]!)}`
}

/** Schema's multi-line failure message as `path: clause; path: clause`. */
export const plainIssues = (raw: string): string => {
  const out: string[] = []
  const lines = raw.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === "" || line.startsWith("at [")) continue
    const next = lines[i + 1]?.trim() ?? ""
    const clause = plainClause(line)
    out.push(next.startsWith("at [") ? `${fmtAt(next.slice(3))}: ${clause}` : clause)
  }
  return out.join("; ")
}
