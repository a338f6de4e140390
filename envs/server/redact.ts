/**
 * A backend's error as a client may see it (docs/env-server.md: clients never see the operator's
 * paths or URLs). Each operator resource's value (a URL's href, origin and host; a file's path)
 * becomes `<resource NAME>`; any other URL, IP address (with its port) or absolute path left in
 * the text becomes a placeholder; the result is cut to 300 characters.
 */
import type { Resources } from "./operator.ts"

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The spellings of a resource's value an error message may carry, each with what replaces it. */
const spellings = (name: string, kind: "file" | "url", value: string): Array<[string, string]> => {
  const named = `<resource ${name}>`
  const out: Array<[string, string]> = [
    [value, named],
    [value.replace(/\/+$/, ""), named]
  ]
  if (kind === "url") {
    try {
      const u = new URL(value)
      for (const s of [u.href, u.href.replace(/\/+$/, ""), u.origin, u.host]) out.push([s, named])
      out.push([u.hostname.replace(/^\[|\]$/g, ""), "<host>"])
    } catch {
      // not a URL after all: its text alone
    }
  }
  return out.filter(([s]) => s.length >= 3)
}

export const redactOperator = (message: string, resources: Resources | undefined): string => {
  let s = message
  // Longest first over all resources, so that one URL's host never eats another's longer URL.
  const all = [...(resources?.values() ?? [])].flatMap((r) => spellings(r.name, r.kind, r.value)).sort((a, b) => b[0].length - a[0].length)
  for (const [v, by] of all) s = s.replace(new RegExp(escapeRe(v), "gi"), by)
  s = s
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "<url>")
    .replace(/\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d+)?/gi, "<address>")
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, "<address>")
    .replace(/(^|[\s"'(=])(?:\/[^\s/:"']+){2,}\/?/g, "$1<path>")
  return s.length > 300 ? `${s.slice(0, 300)}…` : s
}
