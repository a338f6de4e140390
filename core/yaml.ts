/**
 * YAML for specs and configs: plain data only. The `yaml` package turns `!!omap` into a Map,
 * `!!set` into a Set, `!!binary` into bytes and `!!timestamp` into a Date; a Schema then reads a
 * Map or a Set as an object with no keys, and the options written under it were dropped without a
 * word. Such a value is refused, naming the field and how to write it; so is an unknown `!tag`.
 */
import { parseDocument } from "yaml"

const TAG_OF: ReadonlyArray<readonly [(v: object) => boolean, string, string]> = [
  [(v) => v instanceof Map, "!!omap (or !!pairs as a map)", "write a plain mapping (key: value)"],
  [(v) => v instanceof Set, "!!set", "write a list ([a, b]) or a plain mapping"],
  [(v) => v instanceof Date, "!!timestamp", "quote the date to keep it a string"],
  [(v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer, "!!binary", "no option takes bytes"]
]

/** The first value that is not plain JSON data (object, array, string, number, boolean, null), with its path, iteratively. */
export const nonPlainValue = (root: unknown): { path: string; tag: string; hint: string } | undefined => {
  const nodes: Array<{ parent: number; key: string }> = []
  const stack: Array<[unknown, number]> = [[root, -1]]
  while (stack.length > 0) {
    const [v, at] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    const proto = Object.getPrototypeOf(v)
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      const hit = TAG_OF.find(([is]) => is(v))
      const parts: string[] = []
      for (let i = at; i >= 0 && parts.length < 32; i = nodes[i]!.parent) parts.push(nodes[i]!.key)
      const path = parts.reverse().join(".").replace(/\.\[/g, "[") || "(the document)"
      return { path, tag: hit?.[1] ?? `a ${proto?.constructor?.name ?? "non-plain"} value`, hint: hit?.[2] ?? "write plain YAML data" }
    }
    for (const [k, x] of Object.entries(v)) {
      if (x === null || typeof x !== "object") continue
      nodes.push({ parent: at, key: Array.isArray(v) ? `[${k}]` : k })
      stack.push([x, nodes.length - 1])
    }
  }
  return undefined
}

/**
 * Parse YAML text into plain data; throws an Error with a one-line message for a syntax error, a
 * duplicate key (`strict`), an unknown tag, or a value that is not plain data (naming its field).
 */
export const parseYamlData = (text: string, options: { readonly strict?: boolean } = {}): unknown => {
  const doc = parseDocument(text, { strict: options.strict ?? true, uniqueKeys: options.strict ?? true })
  const problem = doc.errors[0] ?? doc.warnings.find((w) => w.code === "TAG_RESOLVE_FAILED")
  if (problem) throw new Error(problem.message.split("\n")[0])
  const value = doc.toJS()
  const bad = nonPlainValue(value)
  if (bad) throw new Error(`${bad.path}: a YAML ${bad.tag} is not read as plain data, and what it holds would be dropped; ${bad.hint}`)
  return value
}
