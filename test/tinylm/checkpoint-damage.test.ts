/**
 * The checkpoint loader on damaged or foreign files (issue 40): metadata that is JSON but not a
 * tinylm config or tokenizer once surfaced as a raw TypeError; a tensor of reversed shape
 * ([d, vocab] for [vocab, d]: the same size) and tensors the model does not have were accepted.
 * Each is a UsageError naming the tensor (or metadata field) and the shapes; nothing is loaded.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FORMAT, readCheckpoint, TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { decodeSafetensors, encodeSafetensors, type NamedTensor } from "../../plugins/tinylm/safetensors.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"

const dir = mkdtempSync(join(tmpdir(), "rb-ckpt-damage-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tok = Tokenizer.fromVocabulary(["go", "up", "down", "left", "right", "box", "wall", "goal", "think", "answer"])
const settings = {
  config: { vocab: tok.size, ctx: 16, d: 8, layers: 1, heads: 2 },
  seed: 1,
  adam: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 },
  schedule: { kind: "constant" as const },
  microBatch: 4
}
const policy = (): TinyLMPolicy => new TinyLMPolicy(tok, settings)

let n = 0
/** The good checkpoint with its tensors and metadata changed by `f`, written to a new file. */
const damaged = async (f: (tensors: NamedTensor[], metadata: Record<string, string>) => NamedTensor[] | undefined): Promise<string> => {
  const good = join(dir, "good.safetensors")
  await policy().save(good)
  const file = decodeSafetensors(readFileSync(good))
  let tensors: NamedTensor[] = [...file.tensors].map(([name, t]) => ({ name, shape: t.shape, data: t.data }))
  const metadata = { ...file.metadata }
  tensors = f(tensors, metadata) ?? tensors
  const p = join(dir, `bad-${n++}.safetensors`)
  writeFileSync(p, encodeSafetensors(tensors, metadata))
  return p
}

const loadError = async (path: string): Promise<{ tag?: string; field?: string; message: string }> => {
  try {
    await policy().load(path)
  } catch (e) {
    const err = e as { _tag?: string; field?: string; message: string }
    return { tag: err._tag, field: err.field, message: err.message }
  }
  return { message: "loaded" }
}

describe("the tinylm checkpoint loader refuses damage with typed errors naming the tensor", () => {
  test("the undamaged checkpoint loads", async () => {
    expect((await loadError(await damaged(() => {}))).message).toBe("loaded")
  })

  test("a reversed shape (same size) is refused, naming both shapes", async () => {
    const p = await damaged((ts) => {
      const wte = ts.find((t) => t.name === "wte")!
      ;(wte as { shape: ReadonlyArray<number> }).shape = [...wte.shape].reverse()
    })
    const e = await loadError(p)
    expect(e.tag).toBe("UsageError")
    expect(e.field).toBe("checkpoint.wte")
    expect(e.message).toMatch(/tensor wte has shape \[8, \d+\], this model's is \[\d+, 8\]/)
  })

  test("an extra tensor is refused, naming it", async () => {
    const e = await loadError(await damaged((ts) => [...ts, { name: "backdoor", shape: [2], data: new Float32Array([1, 2]) }]))
    expect(e.tag).toBe("UsageError")
    expect(e.message).toContain("tensor backdoor is not one of this model's")
  })

  test("torn optimizer state (adam_m without adam_v) and moments of another shape are refused", async () => {
    const torn = await loadError(await damaged((ts) => ts.filter((t) => t.name !== "adam_v.wpe")))
    expect(torn.message).toContain("adam_m.wpe has no adam_v.wpe")
    const shaped = await loadError(await damaged((ts) => ts.map((t) => (t.name === "adam_m.lnfw" ? { ...t, shape: [1, t.data.length] } : t))))
    expect(shaped.field).toBe("checkpoint.adam_m.lnfw")
    expect(shaped.message).toContain("tensor adam_m.lnfw has shape [1, 8], this model's is [8]")
  })

  test("metadata that is JSON but not a config, a tokenizer or a step: a UsageError naming the field, never a TypeError", async () => {
    for (const [key, value, field] of [
      ["config", "null", "checkpoint.config"],
      ["config", "[]", "checkpoint.config"],
      ["config", '{"vocab": "10", "ctx": 16, "d": 8, "layers": 1, "heads": 2}', "checkpoint.config.vocab"],
      ["tokenizer", "{}", "checkpoint.tokenizer"],
      ["tokenizer", '{"words": [1, 2]}', "checkpoint.tokenizer"],
      ["step", "soon", "checkpoint.step"]
    ] as const) {
      const p = await damaged((_, md) => {
        md[key] = value
      })
      let err: { _tag?: string; field?: string; message: string } | undefined
      try {
        readCheckpoint(p)
      } catch (e) {
        err = e as typeof err
      }
      expect(`${key}=${value}: ${err?._tag} ${err?.field}`).toBe(`${key}=${value}: UsageError ${field}`)
      expect((await loadError(p)).tag).toBe("UsageError")
    }
    expect(FORMAT).toBe("ragen-bench-tinylm-1")
  })
})
