/**
 * Builds the native kernels (tinylm-kernels-x86_64.so, committed next to this file) from the same
 * C sources as the wasm module (../wasm/*.c over simd.h's clang-vector layer): kernels.c compiled
 * once per build (SSE2 4 lanes; AVX2 + FMA 8; AVX-512F summing in 8 lanes as AVX2 does, 16-lane
 * matmul tiles; the pre-family AVX-512F build, 16-lane sums), plus cpu.c, which tells the loader
 * at run time which of them this CPU runs. Freestanding (no libc, no undefined
 * symbols: -z defs), stripped, no build id, so the same clang makes the same bytes.
 * Run: `bun plugins/tinylm/kernels/native/build.ts` (Debian's clang + lld; CLANG=... to override).
 * `--check` rebuilds in a temp dir and compares with the committed file.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const here = new URL(".", import.meta.url).pathname

export const LIBRARY = "tinylm-kernels-x86_64.so"

/**
 * The builds, best first; `level` is what cpu.c's tl_cpu_level returns for a CPU that runs it.
 * lanes: the width of every sum along a vector (simd.h VL), which fixes its order; wide: the
 * width of the lanes that are independent outputs (simd.h WL, the matmul tiles).
 * tile: the matmul register tile, rows x wide vectors (matmul.c TR, TV), sized to the ISA's registers.
 * avx512 and avx2 sum with 8 lanes and fuse the same multiply-adds: one numeric family
 * (fma8-v1, dispatch.ts NUMERIC_FAMILIES), the same bits. sse2 has no FMA: it computes what the
 * wasm module does (f32x4-v1).
 */
export const ISAS = [
  { name: "avx512", level: 2, lanes: 8, wide: 16, tile: [Number(process.env.TR512 ?? 4), Number(process.env.TV512 ?? 4)], flags: ["-mavx512f"] },
  // the AVX-512 build before the families (16-lane sums): kept only so that records made with it
  // (kernelsIsa avx512 without a numericFamily note) re-run bit for bit; never picked by auto
  { name: "avx512v0", level: 2, lanes: 16, wide: 16, tile: [4, 4], flags: ["-mavx512f"] },
  { name: "avx2", level: 1, lanes: 8, wide: 8, tile: [Number(process.env.TR256 ?? 6), Number(process.env.TV256 ?? 2)], flags: ["-mavx2", "-mfma"] },
  { name: "sse2", level: 0, lanes: 4, wide: 4, tile: [3, 3], flags: [] }
] as const
export type IsaName = (typeof ISAS)[number]["name"]

const COMMON = [
  "--target=x86_64-linux-gnu",
  "-O3",
  "-fPIC",
  "-ffreestanding",
  "-fno-builtin",
  "-nostdlib",
  "-fno-math-errno",
  // a*b + c inside one expression becomes a fused multiply-add where the ISA has one
  "-ffp-contract=on",
  "-fno-stack-protector",
  "-fno-asynchronous-unwind-tables",
  "-fno-unwind-tables",
  "-fvisibility=hidden",
  "-fno-ident",
  "-Wall",
  "-Werror"
]

const LINK = [
  "--target=x86_64-linux-gnu",
  "-shared",
  "-nostdlib",
  "-fuse-ld=lld",
  "-Wl,--build-id=none",
  "-Wl,-s",
  "-Wl,-z,defs",
  "-Wl,--hash-style=gnu",
  `-Wl,-soname,${LIBRARY}`,
  "-Wl,-z,noexecstack"
]

export const compile = (clang: string, outDir: string): Uint8Array => {
  const objs: string[] = []
  for (const isa of ISAS) {
    const o = join(outDir, `${isa.name}.o`)
    execFileSync(clang, [...COMMON, `-DVL=${isa.lanes}`, `-DWL=${isa.wide}`, `-DTR=${isa.tile[0]}`, `-DTV=${isa.tile[1]}`, `-DISA=${isa.name}`, ...isa.flags, "-c", join(here, "kernels.c"), "-o", o], {
      stdio: "inherit"
    })
    objs.push(o)
  }
  const cpu = join(outDir, "cpu.o")
  execFileSync(clang, [...COMMON, "-c", join(here, "cpu.c"), "-o", cpu], { stdio: "inherit" })
  const out = join(outDir, LIBRARY)
  execFileSync(clang, [...LINK, "-o", out, ...objs, cpu], { stdio: "inherit" })
  for (const o of [...objs, cpu]) rmSync(o)
  return new Uint8Array(readFileSync(out))
}

if (import.meta.main) {
  const clang = process.env.CLANG ?? "clang"
  const check = process.argv.includes("--check")
  const dir = mkdtempSync(join(tmpdir(), "native-build-"))
  const bytes = compile(clang, dir)
  rmSync(dir, { recursive: true })
  if (check) {
    const same = Buffer.compare(Buffer.from(readFileSync(join(here, LIBRARY))), Buffer.from(bytes)) === 0
    console.log(same ? "committed native library matches the C sources" : `${LIBRARY} is STALE: run plugins/tinylm/kernels/native/build.ts`)
    process.exit(same ? 0 : 1)
  }
  // a new file renamed over the old one: a process that has the library mapped keeps the old bytes
  const tmp = join(here, `.${LIBRARY}.tmp`)
  writeFileSync(tmp, bytes, { mode: 0o755 })
  renameSync(tmp, join(here, LIBRARY))
  console.log(`wrote ${join(here, LIBRARY)} (${bytes.length} bytes)`)
}
