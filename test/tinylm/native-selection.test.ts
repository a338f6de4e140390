/**
 * Choosing the kernel backend (plugins/tinylm/kernels/dispatch.ts): auto = native where the
 * library loads, the tinylm option `kernels`, env RAGEN_KERNELS over it, RAGEN_NATIVE_ISA, the
 * fallback to wasm with one line saying why, the runtime notes; and the committed library
 * rebuilt byte for byte from the C sources. Each case runs in its own process (the choice is
 * process-wide).
 */
import { describe, expect, test } from "bun:test"
import { execFileSync, spawnSync } from "node:child_process"
import { join } from "node:path"
import { nativeStatus } from "../../plugins/tinylm/kernels/native/ffi.ts"

const ROOT = join(import.meta.dir, "..", "..")
const bun = process.execPath
const st = nativeStatus()
if (!st.ok && process.env.CI === "true") throw new Error(`the native kernels do not load under CI=true: ${st.why}`)

/** Make a tinylm policy with `option` (or none) in a fresh process; its selection, notes and stderr. */
const probe = (env: Record<string, string>, option?: string) => {
  // with an option: decode it as the trainer does and make a (small) policy, which selects
  const make =
    option === undefined
      ? ""
      : `const o = dec.decodeSync(s.TinyLMOptions, { kernels: "${option}", ctx: 16, d: 8, layers: 1, heads: 2 }); if (!o.ok) throw new Error(o.message); await s.makeTinyLM(o.value, { vocabulary: ["a b"], seed: 1 });`
  const code = `const d = await import("${ROOT}/plugins/tinylm/kernels/dispatch.ts"); const r = await import("${ROOT}/core/runtime.ts"); const s = await import("${ROOT}/plugins/tinylm/spec.ts"); const dec = await import("${ROOT}/core/schema/decode.ts");
try { ${make} console.log(JSON.stringify({ sel: d.selectKernels(${option === undefined ? "" : `"${option}"`}), notes: r.runtimeInfo().notes })) } catch (e) { console.log(JSON.stringify({ err: e._tag, field: e.field, message: e.message })) }`
  const r = spawnSync(bun, ["-e", code], { env: { ...process.env, RAGEN_KERNELS: "", RAGEN_NATIVE_ISA: "", RAGEN_THREADS: "1", ...env }, encoding: "utf8", cwd: ROOT })
  return { ...JSON.parse(r.stdout.trim().split("\n").pop()!), stderr: r.stderr }
}

describe.skipIf(!st.ok)("kernel backend selection", () => {
  test("auto picks native with the CPU's instruction set; both land in the runtime notes", () => {
    const r = probe({})
    expect(r.sel.name).toBe("native")
    expect(r.sel.isa).toBe(st.ok ? st.lib.cpuIsa : "")
    expect(r.notes).toEqual({ kernels: "tinylm:native", kernelsIsa: r.sel.isa, numericFamily: r.sel.isa === "sse2" ? "f32x4-v1" : "fma8-v1", threads: "1" })
    expect(r.stderr).toBe("")
  }, 60000)

  test("the policy option kernels picks the backend; RAGEN_KERNELS overrides it", () => {
    expect(probe({}, "wasm").notes).toEqual({ kernels: "tinylm:wasm", kernelsIsa: "simd128", numericFamily: "f32x4-v1", threads: "1" })
    expect(probe({}, "js").notes).toEqual({ kernels: "tinylm:js", kernelsIsa: "f64", numericFamily: "js-f64", threads: "1" })
    expect(probe({}, "native").sel.name).toBe("native")
    const over = probe({ RAGEN_KERNELS: "wasm" }, "native")
    expect(over.sel).toEqual({ name: "wasm", isa: "simd128", why: "RAGEN_KERNELS=wasm" })
  }, 60000)

  test("RAGEN_NATIVE_ISA picks a lower build; one the CPU cannot run or an unknown one is a usage error", () => {
    expect(probe({ RAGEN_NATIVE_ISA: "sse2" }).notes).toEqual({ kernels: "tinylm:native", kernelsIsa: "sse2", numericFamily: "f32x4-v1", threads: "1" })
    if (st.ok && st.lib.cpuIsa === "avx512") {
      // the AVX-512 build before the families, for old records: picked only when asked for
      expect(probe({ RAGEN_NATIVE_ISA: "avx512v0" }).notes).toEqual({ kernels: "tinylm:native", kernelsIsa: "avx512v0", numericFamily: "avx512-v0", threads: "1" })
    }
    const bad = probe({ RAGEN_NATIVE_ISA: "neon" })
    expect(bad.err).toBe("UsageError")
    expect(bad.field).toBe("RAGEN_NATIVE_ISA")
    expect(bad.message).toContain("use avx512, avx2, sse2")
  }, 60000)

  test("a library that does not load falls back to wasm with one line saying why", () => {
    const r = probe({ RAGEN_NATIVE_LIB: join(ROOT, "no-such-library.so") })
    expect(r.sel.name).toBe("wasm")
    expect(r.notes.kernels).toBe("tinylm:wasm")
    const lines = r.stderr.trim().split("\n")
    expect(lines.length).toBe(1)
    expect(lines[0]).toContain("tinylm: native kernels unavailable (")
    expect(lines[0]).toContain("no-such-library.so is missing")
    expect(lines[0]).toContain("using wasm")
  }, 60000)

  test("a bad kernels option is a usage error naming the field", () => {
    const r = probe({}, "gpu")
    console.log(r.message)
    expect(r.message).toContain("kernels")
    expect(r.message).toContain("native")
  }, 60000)
})

describe("the committed native library", () => {
  test("tinylm-kernels-x86_64.so matches the C sources (needs clang + lld)", () => {
    const clang = process.env.CLANG ?? "clang"
    try {
      execFileSync(clang, ["--version"], { stdio: "ignore" })
    } catch {
      // .ci/run installs clang and lld: under CI a missing toolchain is a failure, not a skip
      if (process.env.CI === "true") throw new Error(`${clang} not found under CI=true: .ci/run must apt-get install clang lld`)
      console.log(`skipped: ${clang} not found (apt-get install -y clang lld to check the native library)`)
      return
    }
    const r = spawnSync(bun, [join(ROOT, "plugins/tinylm/kernels/native/build.ts"), "--check"], { encoding: "utf8" })
    console.log(r.stdout.trim(), r.stderr.trim())
    expect(r.stdout).toContain("committed native library matches the C sources")
    expect(r.status).toBe(0)
  }, 120000)
})
