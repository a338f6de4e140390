/**
 * `npm run bench [-- name ...]`: every benchmarks/<name>.ts is a benchmark script; with no name
 * this lists them (with the first line of each one's doc comment), with names it runs them in
 * turn on this runtime. Figures and the commands that produced them are in benchmarks/RESULTS.md.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { spawnOnRuntimeSync } from "../core/runtime.ts"

const here = fileURLToPath(new URL(".", import.meta.url))
const names = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.slice(0, -3))
  .sort()

const summary = (name: string): string => {
  const m = /\/\*\*\s*\n\s*\*\s*(.+)/.exec(readFileSync(join(here, `${name}.ts`), "utf8"))
  return m ? m[1]!.trim() : ""
}

const wanted = process.argv.slice(2)
if (wanted.length === 0 || wanted.includes("--help")) {
  console.log("usage: npm run bench -- <name> [<name> ...]   (each runs benchmarks/<name>.ts with its defaults)\n")
  for (const n of names) console.log(`  ${n.padEnd(16)} ${summary(n)}`)
  process.exit(0)
}
const unknown = wanted.filter((w) => !names.includes(w))
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")}; known: ${names.join(", ")}`)
  process.exit(2)
}
let failed = 0
for (const n of wanted) {
  console.log(`== ${n}`)
  const r = spawnOnRuntimeSync(join(here, `${n}.ts`), [], { stdio: "inherit" })
  if (r.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
