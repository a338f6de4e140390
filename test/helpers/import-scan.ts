/** The import scanner of the layering tests (core imports, contracts floor, doors between plugins). */
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"

/** Every .ts file below `dir`. */
export const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : []
  })

/** Static imports and re-exports, dynamic import(), and new URL("…", import.meta.url): the module paths a file names. */
export const specifiers = (text: string): string[] => {
  const out: string[] = []
  for (const re of [/\bfrom\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["'`]([^"'`]+)["'`]/g, /\bimport\s+["']([^"']+)["']/g, /new URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url/g]) {
    for (const m of text.matchAll(re)) out.push(m[1]!)
  }
  return out
}
