/**
 * The WebShop page parser (envs/webshop/html.ts) on the 1 MB adversarial pages of docs/decisions.md#issue-15 and
 * on a real-sized page: milliseconds per parse (median of --reps). With --old, the old
 * script-stripping regex, /<script\b[\s\S]*?<\/script\s*>/gi, is timed once on 64, 128 and
 * 256 kB prefixes of the first page (it is quadratic: the 1 MB page took 47 s in docs/decisions.md#issue-15).
 *
 *   node_modules/.bin/bun benchmarks/webshop-html.ts [--reps 5] [--old]
 */
import { parsePage } from "../envs/webshop/html.ts"

const argv = process.argv.slice(2)
const REPS = Number(argv[argv.indexOf("--reps") + 1] ?? 5) || 5
const MB = 1 << 20
const BASE = "http://127.0.0.1:3000"

const realPage =
  `<html><body><div id="instruction-text"><h4>Instruction: i need a red cotton t-shirt</h4></div>` +
  Array.from({ length: 10 }, (_, i) => `<div class="item"><a class="product-link" href="/item_page/s/B0${i}">B0${i}</a><p>Product ${i} title</p><p>$${i}.99</p></div>`).join("") +
  `<form action="/s"><button class="btn">Back to Search</button></form><script>console.log(1)</script></body></html>`

const pages: Array<[string, string]> = [
  ['"<script" × 149,796 (1 MB, no ">")', "<script".repeat(Math.floor(MB / 7))],
  ['"<script>" × 131,072 (1 MB, never closed)', "<script>".repeat(MB / 8)],
  ['"<script>alert(1)</script>" × 41,943 (1 MB)', "<script>alert(1)</script>".repeat(Math.floor(MB / 25))],
  ['"<a href=x>" × 104,857 (1 MB)', "<a href=x>".repeat(Math.floor(MB / 10))],
  ["a results page (10 items, 1.1 kB)", realPage]
]

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

console.log(`parsePage, median of ${REPS} (bun ${Bun.version}):`)
for (const [name, html] of pages) {
  const ms: number[] = []
  let outcome = ""
  for (let r = 0; r < REPS; r++) {
    const t0 = performance.now()
    try {
      const p = parsePage(html, BASE)
      outcome = `${p.kind}, ${p.text.length} chars of text`
    } catch (e) {
      outcome = `refused: ${(e as Error).message}`
    }
    ms.push(performance.now() - t0)
  }
  console.log(JSON.stringify({ task: `parsePage ${name}`, ms: Number(median(ms).toFixed(2)), outcome }))
}
if (argv.includes("--old")) {
  // The old regex on growing prefixes of the first page: time grows with the square of the size.
  for (const kb of [64, 128, 256]) {
    const page = "<script".repeat(Math.floor((kb * 1024) / 7))
    const t0 = performance.now()
    page.replace(/<script\b[\s\S]*?<\/script\s*>/gi, "")
    const ms = performance.now() - t0
    const t1 = performance.now()
    try {
      parsePage(page, BASE)
    } catch {
      // refused (a tag name over 64 characters): the time to refuse is what is measured
    }
    console.log(JSON.stringify({ task: `old regex vs parsePage, "<script" page of ${kb} kB`, oldRegexMs: Math.round(ms), parsePageMs: Number((performance.now() - t1).toFixed(1)) }))
  }
}
