/**
 * How large samples.jsonl gets: per env, a 99-step run with an evaluation at every step (100
 * evaluations of the default 4 episodes) from the default warm start, then the file's size and
 * the largest line. Prints a Markdown table (benchmarks/results/samples.md).
 *
 *   node_modules/.bin/bun benchmarks/samples-size.ts [--envs frozenlake,sokoban] [--steps 99]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { SAMPLES_FILE } from "../core/results/samples.ts"

const { values } = parseArgs({ options: { envs: { type: "string", default: "frozenlake,sokoban,countdown,metamathqa,searchqa,webshop" }, steps: { type: "string", default: "99" } } })
const root = join(import.meta.dir, "..")

console.log(`| env | evaluations | episodes | samples.jsonl (bytes) | per evaluation (bytes) | largest line (bytes) | wall (s) |`)
console.log(`|---|---:|---:|---:|---:|---:|---:|`)
for (const env of values.envs!.split(",")) {
  const out = mkdtempSync(join(tmpdir(), "ragen-samples-size-"))
  const t0 = performance.now()
  const p = Bun.spawnSync(
    [
      process.execPath,
      "cli.ts",
      "train",
      "--env",
      env,
      "--steps",
      values.steps!,
      "--P",
      "2",
      "--G",
      "2",
      "--set",
      "evalEvery=1",
      "--set",
      "valSeeds=4",
      "--set",
      "valTemperatures=[0.5]",
      "--set",
      "diagEvery=0",
      "--set",
      "checkpointEvery=0",
      "--out",
      out,
      "--quiet"
    ],
    { cwd: root, stderr: "pipe", stdout: "pipe" }
  )
  const wall = (performance.now() - t0) / 1000
  if (p.exitCode !== 0) {
    console.log(`| ${env} | failed (exit ${p.exitCode}): ${p.stderr.toString().trim().split("\n").at(-1)} | | | | | |`)
    continue
  }
  const run = readdirSync(out).find((d) => !d.startsWith("."))!
  const lines = readFileSync(join(out, run, SAMPLES_FILE), "utf8")
    .trim()
    .split("\n")
  const bytes = lines.reduce((a, l) => a + Buffer.byteLength(l) + 1, 0)
  const episodes = lines.reduce((a, l) => a + (JSON.parse(l) as { episodes: unknown[] }).episodes.length, 0)
  const largest = Math.max(...lines.map((l) => Buffer.byteLength(l)))
  console.log(`| ${env} | ${lines.length} | ${episodes} | ${bytes} | ${Math.round(bytes / lines.length)} | ${largest} | ${wall.toFixed(0)} |`)
  rmSync(out, { recursive: true, force: true })
}
