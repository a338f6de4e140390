/**
 * Workers that share a work folder run one run at a time (plugins/bullmq/work-dir.ts withRunLock):
 * a run handed out twice (a restarted Redis) must not have two writers in its folder.
 */
import { expect, test } from "bun:test"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { withRunLock } from "../../plugins/bullmq/work-dir.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test("two holders of one run take turns; other runs do not wait; the lock is gone afterwards", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragen-lock-"))
  const log: string[] = []
  const hold = (run: string, who: string) =>
    withRunLock(
      dir,
      run,
      async () => {
        log.push(`${who} in`)
        await sleep(60)
        log.push(`${who} out`)
        return who
      },
      10
    )
  const [a, b, c] = await Promise.all([hold("r1", "a"), hold("r1", "b"), hold("r2", "c")])
  expect([a, b, c]).toEqual(["a", "b", "c"])
  // a and b never overlap; c (another run) ran beside them
  const ia = log.indexOf("a out")
  expect(log.indexOf("b in")).toBeGreaterThan(ia)
  expect(log.indexOf("c in")).toBeLessThan(ia)
  expect(existsSync(join(dir, "r1.lock"))).toBe(false)
})

test("a lock left by a process that is gone is taken over; an error releases the lock", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragen-lock-"))
  writeFileSync(join(dir, "r1.lock"), "999999999")
  expect(await withRunLock(dir, "r1", async () => "ran", 10)).toBe("ran")
  await expect(
    withRunLock(dir, "r1", async () => {
      throw new Error("boom")
    })
  ).rejects.toThrow("boom")
  expect(existsSync(join(dir, "r1.lock"))).toBe(false)
})
