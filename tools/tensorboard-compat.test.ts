/**
 * The TensorBoard sink's files read by TensorBoard itself (its Python EventAccumulator, the
 * loader behind `tensorboard --logdir`), including the resume convention: a resumed run's new
 * file supersedes the old file's steps after the resume point.
 *
 * A manual check, not part of `npm test`: TensorBoard is a PyPI package (Debian has none), and CI
 * installs only from npm and apt. With tensorboard installed for python3, run
 *   bun test tools/tensorboard-compat.test.ts
 * test/metrics/sinks.test.ts reads the same files with an independent reader in every run.
 */
import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { decodeSync } from "../core/schema/decode.ts"
import { makeTensorBoardSink, tensorBoardSinkSpec } from "../plugins/sinks/tensorboard.ts"

const probe = spawnSync("python3", ["-c", "import tensorboard.backend.event_processing.event_accumulator"], { encoding: "utf8", timeout: 60000 })
const available = probe.status === 0
if (!available) console.log("skipping the TensorBoard compatibility check: python3 cannot import tensorboard")

const READER = `
import json, sys
from tensorboard.backend.event_processing import event_accumulator as ea
acc = ea.EventAccumulator(sys.argv[1], purge_orphaned_data=True)
acc.Reload()
print(json.dumps({tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}))
`

describe("TensorBoard reads the sink's event files", () => {
  test("scalars by tag and step; after a resume from step 3 the new file's steps 4.. replace the old ones", () => {
    if (!available) return // reason printed above
    const dir = mkdtempSync(join(tmpdir(), "ragen-tb-"))
    const o = decodeSync(tensorBoardSinkSpec.options, {})
    if (!o.ok) throw new Error(o.message)
    let t = 1_700_000_000
    const first = makeTensorBoardSink(o.value, { runDir: dir, runId: "r" }, () => t++)
    for (let s = 0; s <= 6; s++) first.write({ step: s, "train/success": s / 8, "val/success@0.5": s % 2 ? null : 0.25, "mi/first_turn/mi_est": 1.5 })
    const resumed = makeTensorBoardSink(o.value, { runDir: dir, runId: "r", resumeFromStep: 3 }, () => t++)
    for (let s = 4; s <= 7; s++) resumed.write({ step: s, "train/success": 100 + s })
    const r = spawnSync("python3", ["-c", READER, dir], { encoding: "utf8" })
    expect(r.status).toBe(0)
    const scalars = JSON.parse(r.stdout) as Record<string, Array<[number, number]>>
    expect(scalars["train/success"]).toEqual([
      [0, 0],
      [1, 0.125],
      [2, 0.25],
      [3, 0.375],
      [4, 104],
      [5, 105],
      [6, 106],
      [7, 107]
    ])
    expect(scalars["val/success@0.5"]).toEqual([
      [0, 0.25],
      [2, 0.25]
    ])
    expect(scalars["mi/first_turn/mi_est"]).toEqual([
      [0, 1.5],
      [1, 1.5],
      [2, 1.5],
      [3, 1.5]
    ])
  }, 60000) // importing tensorboard takes seconds
})
