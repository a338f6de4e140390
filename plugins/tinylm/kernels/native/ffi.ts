/**
 * Opens the committed native library (tinylm-kernels-x86_64.so, built by build.ts) through
 * `bun:ffi` under Bun and `Deno.dlopen` under Deno (which needs --allow-ffi; -A has it), and binds
 * one instruction set's kernels to an arena memory: each export takes the arena's base address,
 * then the wasm export's i32 arguments (byte offsets and sizes), so nothing is copied per call.
 * Synchronous (the kernel pool's worker opens it too); every failure is a reason string, never a throw.
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { WasmExports } from "../fast.ts"

/**
 * The library's builds, best first (a CPU that runs one runs every later one). avx512v0 is the
 * AVX-512 build before the numeric families (16-lane sums, numeric family avx512-v0): only for
 * re-running records made with it (RAGEN_NATIVE_ISA=avx512v0); auto never picks it.
 */
export const NATIVE_ISAS = ["avx512", "avx512v0", "avx2", "sse2"] as const
export type NativeIsa = (typeof NATIVE_ISAS)[number]
/** The builds a user picks between (RAGEN_NATIVE_ISA), without the legacy one. */
export const CURRENT_NATIVE_ISAS: ReadonlyArray<NativeIsa> = ["avx512", "avx2", "sse2"]

/** tl_cpu_level's answer → the best build this CPU runs (cpu.c). */
const LEVEL_ISA: Record<number, NativeIsa> = { 2: "avx512", 1: "avx2", 0: "sse2" }

type Arg = "i32" | "f64"
const i32 = (n: number): Arg[] => Array<Arg>(n).fill("i32")

/** The arguments after the base address, per export (the C signatures in kernels.c): i32 offsets and sizes, f64 scalars. */
export const NATIVE_ARGS: Readonly<Record<keyof WasmExports, ReadonlyArray<Arg>>> = {
  matmul_forward: i32(8),
  matmul_forward_t: i32(10),
  matmul_backward_part: i32(14),
  attention_forward: i32(8),
  attention_backward: i32(10),
  attention_forward_prefixed: i32(11),
  attention_backward_prefixed: i32(14),
  attention_decode: i32(8),
  attention_decode_rows: i32(10),
  residual_forward: i32(4),
  gelu_forward: i32(3),
  gelu_backward: i32(5),
  layernorm_forward: i32(8),
  layernorm_backward: i32(10),
  head_forward: i32(8),
  head_backward: i32(11),
  adamw_update: [...i32(5), ...Array<Arg>(8).fill("f64")]
}

/** The committed library; env RAGEN_NATIVE_LIB names another build (tests use it for the fallback). */
export const libraryPath = (): string => process.env.RAGEN_NATIVE_LIB || fileURLToPath(new URL("./tinylm-kernels-x86_64.so", import.meta.url))

type Fn = (...args: unknown[]) => void
interface Opened {
  readonly cpuIsa: NativeIsa
  /** The exports of one build, unbound (first argument: the base address). */
  readonly symbols: (isa: NativeIsa) => Record<keyof WasmExports, Fn>
  /** The base address of a buffer, in the form this runtime's FFI takes for a pointer argument. */
  readonly base: (buffer: ArrayBufferLike) => unknown
}

export type NativeStatus = { readonly ok: true; readonly lib: Opened } | { readonly ok: false; readonly why: string }

let status: NativeStatus | undefined

const g = globalThis as { Bun?: unknown; Deno?: any }

const open = (): NativeStatus => {
  if (process.platform !== "linux" || process.arch !== "x64") return { ok: false, why: `the native library is built for linux x86-64 only (this is ${process.platform}/${process.arch})` }
  const path = libraryPath()
  if (!existsSync(path)) return { ok: false, why: `${path} is missing (run bun plugins/tinylm/kernels/native/build.ts)` }
  const names = (isa: NativeIsa) => Object.keys(NATIVE_ARGS).map((k) => [k as keyof WasmExports, `tl_${isa}_${k}`] as const)
  try {
    if (g.Bun) {
      // a synchronous require: the worker thread opens the library in its message handler
      const ffi = require("bun:ffi") as typeof import("bun:ffi")
      const cpu = ffi.dlopen(path, { tl_cpu_level: { args: [], returns: "i32" } })
      const cpuIsa = LEVEL_ISA[cpu.symbols.tl_cpu_level() as number] ?? "sse2"
      const cache = new Map<NativeIsa, Record<keyof WasmExports, Fn>>()
      return {
        ok: true,
        lib: {
          cpuIsa,
          symbols: (isa) => {
            let s = cache.get(isa)
            if (!s) {
              const defs: Record<string, { args: Array<"ptr" | Arg>; returns: "void" }> = {}
              for (const [k, sym] of names(isa)) defs[sym] = { args: ["ptr", ...NATIVE_ARGS[k]], returns: "void" }
              const lib = ffi.dlopen(path, defs)
              s = Object.fromEntries(names(isa).map(([k, sym]) => [k, lib.symbols[sym] as unknown as Fn])) as Record<keyof WasmExports, Fn>
              cache.set(isa, s)
            }
            return s
          },
          base: (buffer) => ffi.ptr(new Uint8Array(buffer))
        }
      }
    }
    if (g.Deno) {
      const D = g.Deno
      // ask first: a dlopen without the permission would prompt on a terminal
      if (D.permissions.querySync({ name: "ffi" }).state !== "granted") return { ok: false, why: "Deno runs without --allow-ffi (or -A)" }
      const cpu = D.dlopen(path, { tl_cpu_level: { parameters: [], result: "i32" } })
      const cpuIsa = LEVEL_ISA[cpu.symbols.tl_cpu_level() as number] ?? "sse2"
      const cache = new Map<NativeIsa, Record<keyof WasmExports, Fn>>()
      return {
        ok: true,
        lib: {
          cpuIsa,
          symbols: (isa) => {
            let s = cache.get(isa)
            if (!s) {
              const defs: Record<string, { parameters: string[]; result: "void" }> = {}
              for (const [k, sym] of names(isa)) defs[sym] = { parameters: ["pointer", ...NATIVE_ARGS[k]], result: "void" }
              const lib = D.dlopen(path, defs)
              s = Object.fromEntries(names(isa).map(([k, sym]) => [k, lib.symbols[sym] as Fn])) as Record<keyof WasmExports, Fn>
              cache.set(isa, s)
            }
            return s
          },
          base: (buffer) => D.UnsafePointer.of(new Uint8Array(buffer))
        }
      }
    }
    return { ok: false, why: "no FFI on this runtime (Bun's bun:ffi or Deno.dlopen)" }
  } catch (e) {
    const msg = String((e as Error)?.message ?? e).split("\n")[0] ?? ""
    return { ok: false, why: g.Deno && /ffi|permission/i.test(msg) ? `Deno needs --allow-ffi (or -A) to load it: ${msg}` : `it did not load: ${msg}` }
  }
}

/** The library, opened once per thread (or why not). */
export const nativeStatus = (): NativeStatus => (status ??= open())

/** The exports of build `isa` bound to `memory`'s base address (the memory never grows or moves). */
export const bindNative = (lib: Opened, isa: NativeIsa, memory: WebAssembly.Memory): WasmExports => {
  const base = lib.base(memory.buffer)
  const syms = lib.symbols(isa)
  const ex: Record<string, Fn> = {}
  for (const k of Object.keys(NATIVE_ARGS) as Array<keyof WasmExports>) ex[k] = syms[k].bind(null, base)
  return ex as unknown as WasmExports
}
