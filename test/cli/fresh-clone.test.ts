// A fresh clone stays clean after `npm ci` and `npm install` (docs/decisions.md#issue-28): runs record the code
// version as "<commit>-dirty" when it is not, and a clone whose install rewrote the lock file or
// changed cli.ts's mode recorded every run as dirty. The committed tree (HEAD) is cloned into a
// temporary folder and installed there (runtime dependencies only, no install scripts, from npm's
// cache when it has them). Skipped outside CI only when the npm registry cannot be reached.
import { afterAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { root } from "../helpers/cli.ts"

const dir = mkdtempSync(join(tmpdir(), "ragen-fresh-clone-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const clone = join(dir, "c")

const sh = (cmd: string, args: ReadonlyArray<string>, cwd: string, timeout = 60_000) => {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, npm_config_update_notifier: "false" } })
  return { code: r.status ?? -1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` }
}
const npmFlags = ["--omit=dev", "--omit=optional", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"]
const status = (): string => sh("git", ["status", "--porcelain"], clone).out.trim()

describe("a fresh clone", () => {
  test("npm ci and npm install leave git status clean (lock current, cli.ts's mode committed)", () => {
    const head = sh("git", ["rev-parse", "HEAD"], root).out.trim()
    expect(sh("git", ["clone", "-q", "--no-checkout", root, clone], dir).code).toBe(0)
    expect(sh("git", ["checkout", "-q", head], clone).code).toBe(0)
    expect(sh("git", ["ls-files", "-s", "cli.ts"], clone).out).toStartWith("100755")
    // the package's bin too: npm makes it executable where it links it (npm install <folder>, npm link), so a 644 one dirties the clone
    const bin = String(JSON.parse(readFileSync(join(clone, "package.json"), "utf8")).bin["ragen-bench"])
    expect(sh("git", ["ls-files", "-s", bin], clone).out).toStartWith("100755")
    const ci = sh("npm", ["ci", ...npmFlags], clone, 240_000)
    if (ci.code !== 0) {
      const reachable = sh("npm", ["ping"], clone, 20_000).code === 0
      if (!reachable && process.env.CI !== "true") {
        console.log(`skipping the fresh-clone install check: the npm registry cannot be reached (${ci.out.trim().split("\n").at(-1)})`)
        return
      }
      throw new Error(`npm ci failed in a fresh clone: ${ci.out.slice(-2000)}`)
    }
    expect(status()).toBe("")
    // `npm install` (the README's first command) rewrites a lock file that is not current.
    expect(sh("npm", ["install", ...npmFlags], clone, 240_000).code).toBe(0)
    expect(status()).toBe("")
  }, 600_000)
})
