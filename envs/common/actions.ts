/**
 * Strict parsing of a grid move inside `<answer>…</answer>`. Accepted (case-insensitive,
 * surrounding whitespace and one trailing "." ignored): the action name ("Up"), the RAGEN
 * reference's 1-based number ("1"), or both as in its prompt ("1 (Up)", which must agree).
 * Anything else is invalid (-1). Long text is rejected before any work is done on it.
 */
const formRe = /^\s*(?:(\d)\s*\(\s*([a-z]+)\s*\)|([a-z]+)|(\d))\s*\.?\s*$/i

export interface ActionParser {
  /** Index into `names`, or -1 when the text is not an action. */
  (text: string): number
}

/** `names` in the order of the RAGEN reference's numbering (names[0] is action "1"). */
export const makeActionParser = (names: ReadonlyArray<string>): ActionParser => {
  const byName = new Map<string, number>()
  names.forEach((n, i) => byName.set(n.toLowerCase(), i))
  // Fast path: exact names as the teacher and most policies write them.
  const exact = new Map<string, number>()
  names.forEach((n, i) => {
    exact.set(n, i)
    exact.set(n.toLowerCase(), i)
    exact.set(n.toUpperCase(), i)
  })
  const byNumber = (d: string): number => {
    const k = Number(d) - 1
    return k >= 0 && k < names.length ? k : -1
  }
  return (text: string): number => {
    const hit = exact.get(text)
    if (hit !== undefined) return hit
    if (typeof text !== "string" || text.length > 40) return -1
    const m = formRe.exec(text)
    if (!m) return -1
    if (m[1] !== undefined) {
      const a = byNumber(m[1])
      const b = byName.get(m[2]!.toLowerCase()) ?? -1
      return a === b ? a : -1
    }
    if (m[3] !== undefined) return byName.get(m[3].toLowerCase()) ?? -1
    return byNumber(m[4]!)
  }
}
