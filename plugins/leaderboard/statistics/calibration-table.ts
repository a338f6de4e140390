/**
 * The calibration and power tables of docs/leaderboard.md, computed (never typed in):
 *
 *   node_modules/.bin/bun plugins/leaderboard/statistics/calibration-table.ts [reference-dir] [--write docs/leaderboard.md]
 *   node_modules/.bin/bun plugins/leaderboard/statistics/calibration-table.ts <reference-dir> --power   # 3 and 4 only, printed
 *
 * 1. One comparison on simulated nulls (calibration.ts NULLS) at n = 3…12: the false-positive rate
 *    of each test at α = 0.05 and the coverage of the 95% t interval.
 * 2. Pages of 6, 12, 24 and m null comparisons with Holm (m: the reference page's primary family,
 *    the comparisons with none and of each filter with its matched random control): the
 *    family-wise false-positive rate of the chosen procedure.
 * 3. Power: a true effect of 2, 5 or 10 points at the suite's paired sd, measured on the
 *    reference records (default plugins/leaderboard/reference/standard: the pooled sd of the per-seed
 *    differences of the area score, every comparison of a row where none learns), alone and on a
 *    page the size of the reference page's family; and per primary contrast of the reference page
 *    (each top-p rule against none and against its control), the power for 5 points at its own
 *    paired sd and n, alone at α and under the page's Holm.
 * 4. The reference page under the rule: how many noise-floor comparisons are separated.
 *
 * With --write, the text replaces what lies between the calibration markers of that file.
 */
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { buildLeaderboard } from "../build.ts"
import { collectInputs } from "../collect.ts"
import { calibrateSingle, mcse, NULLS, pageRejectionRate, powerOnPage } from "./calibration.ts"
import { isPositiveControl } from "../labels.ts"
import { tTwoSided } from "./student-t.ts"
import { PAIRED_TEST } from "./verdicts.ts"

const NS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
const SINGLE_REPS = 10_000
const PAGE_REPS = 1_000
const POWER_REPS = 2_000
const BEGIN = "<!-- calibration:begin (generated: bun plugins/leaderboard/statistics/calibration-table.ts --write docs/leaderboard.md) -->"
const END = "<!-- calibration:end -->"

const pct = (x: number, d = 1): string => (100 * x).toFixed(d)

/** The paired sd of the area and the noise floor's verdicts on a reference page. */
const reference = async (dir: string) => {
  const collected = await Effect.runPromise(collectInputs([dir], "."))
  const lb = buildLeaderboard({ ...collected, siteDir: "." })
  const learning = lb.rows.filter((r) => r.notLearning === null)
  const sds = learning.flatMap((r) => r.cells.flatMap((c) => (c.delta?.sd != null ? [c.delta.sd] : [])))
  const pooled = Math.sqrt(sds.reduce((a, s) => a + s * s, 0) / sds.length)
  const floors = lb.rows.flatMap((r) => r.cells.filter((c) => c.kind === "noise-floor" && c.delta).map((c) => ({ env: r.env, d: c.delta! })))
  // The primary contrasts: each top-p rule (a filter that is neither a random control nor the positive control) against none and against its control.
  const topP = (name: string) => !name.startsWith("random") && !isPositiveControl(name) && !name.startsWith("Q4") && !name.startsWith("quantile")
  const contrasts = lb.rows.flatMap((r) =>
    r.cells
      .filter((c) => c.kind === "filter" && topP(c.filter))
      .flatMap((c) => [
        ...(c.delta ? [{ env: r.env, notLearning: r.notLearning !== null, what: `${c.filter} − none`, d: c.delta }] : []),
        ...(c.selection ? [{ env: r.env, notLearning: r.notLearning !== null, what: `${c.filter} − ${c.selection.control}`, d: c.selection.delta }] : [])
      ])
  )
  return { lb, pooled, comparisons: sds.length, floors, family: lb.family.primary, contrasts }
}

const tables = async (dir: string): Promise<string> => {
  const out: string[] = []
  const se = mcse(0.05, SINGLE_REPS)
  out.push(`### One comparison on simulated nulls (${SINGLE_REPS} per cell; Monte Carlo standard error ${pct(se, 2)} points at 5%)`, "")
  out.push("False-positive rate at α = 0.05 of the exact sign-flip test (chosen) and of the paired t-test, and the coverage of the 95% t interval, in %:", "")
  out.push(`| null | ${NS.map((n) => `n=${n}`).join(" | ")} |`, `|---|${NS.map(() => "---|").join("")}`)
  for (const d of NULLS) {
    const cs = NS.map((n) => calibrateSingle(d, n, SINGLE_REPS))
    out.push(`| ${d.name}: sign-flip | ${cs.map((c) => pct(c.fprSignFlip)).join(" | ")} |`)
    out.push(`| ${d.name}: t-test | ${cs.map((c) => pct(c.fprT)).join(" | ")} |`)
    out.push(`| ${d.name}: t interval coverage | ${cs.map((c) => pct(c.coverageT)).join(" | ")} |`)
  }
  out.push("", `### Pages of null comparisons with Holm (${PAGE_REPS} pages per cell; Monte Carlo standard error ${pct(mcse(0.05, PAGE_REPS), 2)} points at 5%)`, "")
  out.push(`Family-wise false-positive rate (any comparison on the page separated) of the ${PAIRED_TEST} test with Holm, in %:`, "")
  const ref = await reference(dir)
  const m = Math.max(1, ref.family)
  out.push(`| null | m | ${NS.map((n) => `n=${n}`).join(" | ")} |`, `|---|---|${NS.map(() => "---|").join("")}`)
  for (const d of NULLS) for (const size of [...new Set([6, 12, 24, m])]) out.push(`| ${d.name} | ${size} | ${NS.map((n) => pct(pageRejectionRate(d, n, size, PAGE_REPS, PAIRED_TEST))).join(" | ")} |`)
  out.push("", powerOf(dir, ref))
  return out.join("\n")
}

/** Sections 3 and 4 alone: the power tables and the noise floor of one reference page (no simulated nulls). */
const powerTables = async (dir: string): Promise<string> => powerOf(dir, await reference(dir))

const powerOf = (dir: string, ref: Awaited<ReturnType<typeof reference>>): string => {
  const out: string[] = []
  const m = Math.max(1, ref.family)
  out.push(`### Power at the suite's paired sd (${POWER_REPS} pages per cell)`, "")
  out.push(
    `Paired sd of the area score on ${dir}: ${pct(ref.pooled, 2)} points (the root mean square of the per-seed differences' sd over its ${ref.comparisons} comparisons in rows where none learns or collapses). Share of pages on which a true effect is separated in its direction, in %, alone and among ${m - 1} null comparisons (the reference page's family):`,
    ""
  )
  out.push(`| effect | page | ${NS.map((n) => `n=${n}`).join(" | ")} |`, `|---|---|${NS.map(() => "---|").join("")}`)
  for (const effect of [0.02, 0.05, 0.1])
    for (const size of [1, m])
      out.push(`| ${pct(effect, 0)} points | ${size === 1 ? "alone" : `m = ${size}`} | ${NS.map((n) => pct(powerOnPage(ref.pooled, effect, n, size, POWER_REPS))).join(" | ")} |`)
  const sel = ref.lb.family.selection ?? 0
  out.push(
    "",
    `### Power of the reference page's primary contrasts (${POWER_REPS} pages each)`,
    "",
    `Each top-p rule against none and against its matched random control on ${dir}, for a true difference of 5 points at the comparison's own paired sd (its per-seed differences' sd) and n: alone at α = 0.05, and under the page's Holm (among ${m - 1} null comparisons: the page's family of ${m}${sel ? `, ${m - sel} with none and ${sel} with a control` : ""}), with the seeds for ±5 the page shows (80% power at the first Holm threshold α/${m}). A row marked "(none does not learn)" is out of the page's aggregates.`,
    ""
  )
  out.push("| env | contrast | n | paired sd (points) | power alone (%) | power under Holm (%) | seeds for ±5 |", "|---|---|---|---|---|---|---|")
  for (const c of ref.contrasts)
    out.push(
      `| ${c.env.replace(/^.*\//, "")}${c.notLearning ? " (none does not learn)" : ""} | ${c.what} | ${c.d.n} | ${c.d.sd === null ? "—" : pct(c.d.sd, 2)} | ${c.d.sd === null ? "—" : pct(powerOnPage(c.d.sd, 0.05, c.d.n, 1, POWER_REPS))} | ${c.d.sd === null ? "—" : pct(powerOnPage(c.d.sd, 0.05, c.d.n, m, POWER_REPS))} | ${c.d.seedsNeeded ?? "—"} |`
    )
  const sep = ref.floors.filter((f) => f.d.verdict === "better" || f.d.verdict === "worse")
  // The paired t-test's p from the same mean, sd and n (what the other test would have said).
  const tP = (d: (typeof ref.floors)[number]["d"]): number | null => (d.n >= 2 && d.sd !== null && d.sd > 0 ? tTwoSided(d.mean / (d.sd / Math.sqrt(d.n)), d.n - 1) : null)
  const tSep = ref.floors.filter((f) => (tP(f.d) ?? 1) <= 0.05)
  out.push("", "### The noise floor of the reference page under this rule", "")
  out.push(
    `${sep.length} of the ${ref.floors.length} noise-floor comparisons of ${dir} are separated (each tested alone at α = 0.05 with the ${PAIRED_TEST} test; the paired t-test would give p ≤ 0.05 on ${tSep.length}). Per env, Δ area, sign-flip p and t-test p: ${ref.floors.map((f) => `${f.env.replace(/^.*\//, "")} ${f.d.mean >= 0 ? "+" : "−"}${pct(Math.abs(f.d.mean))} (p ${f.d.p?.toFixed(3) ?? "—"}, t ${tP(f.d)?.toFixed(3) ?? "—"}, n = ${f.d.n})`).join("; ")}. The page's first sentence: "${ref.lb.verdict.sentence}"`
  )
  return out.join("\n")
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const w = args.indexOf("--write")
  const target = w >= 0 ? args[w + 1] : undefined
  if (w >= 0 && !target) {
    console.error("calibration-table: --write needs a file: --write docs/leaderboard.md")
    process.exit(2)
  }
  const dir = args.find((a, i) => !a.startsWith("--") && (w < 0 || i !== w + 1)) ?? "plugins/leaderboard/reference/standard"
  const text = args.includes("--power") ? await powerTables(dir) : await tables(dir)
  if (!target) console.log(text)
  else {
    const doc = readFileSync(target, "utf8")
    const a = doc.indexOf(BEGIN)
    const b = doc.indexOf(END)
    if (a < 0 || b < a) {
      console.error(`calibration-table: ${target} has no calibration markers (add ${BEGIN} and ${END})`)
      process.exit(2)
    }
    writeFileSync(target, `${doc.slice(0, a + BEGIN.length)}\n${text}\n${doc.slice(b)}`)
    console.log(`wrote ${target}`)
  }
}
