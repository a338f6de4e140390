/**
 * The fast test tier (`npm run test:fast`): every test file that starts no process (no CLI run, no
 * worker pool, no browser, no Redis, no Python) and trains no more than a few steps — the developer's
 * loop, under 2 minutes on 2 cores. `npm test` (and CI) runs everything.
 *
 *   npm run test:fast    (bun test on the files this script prints)
 */
import { readFileSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const root = join(import.meta.dir, "..")

/** What a test file that starts a process, directly or through a helper, names. */
export const SPAWNS = /child_process|Bun\.spawn|runCli|spawnOnRuntime|playwright|chromium|redis|bullmq|python3|runSweep|workers:\s*[1-9]/

/**
 * Files left to the full tier though they name no process: WebGPU (a Deno child or a GPU adapter),
 * and those over ~20 s on 2 cores (warm-start learning checks, re-scoring published runs, the fuzzer,
 * whole-run kernel parity, the learning loop), from one timed run of this tier.
 */
export const SLOW: ReadonlyArray<string> = [
  "test/leaderboard/run-scores.test.ts",
  "test/tinylm/warmstarts.test.ts",
  "test/hardening/fuzz.test.ts",
  "test/tinylm/native-kernels.test.ts",
  "test/train/loop.test.ts"
]

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith(".test.ts") ? [p] : []
  })

export const fastFiles = (): string[] =>
  walk(join(root, "test"))
    .map((f) => relative(root, f))
    .filter((f) => !f.startsWith("test/webgpu/") && !SPAWNS.test(readFileSync(join(root, f), "utf8")) && !SLOW.includes(f))
    .sort()

if (import.meta.main) console.log(fastFiles().join("\n"))
