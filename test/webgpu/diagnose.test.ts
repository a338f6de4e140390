/**
 * Why no adapter (docs/decisions.md#issue-29), one line with the fix. First diagnose() on injected facts, one
 * missing piece each; then the real probe (a Deno child, the real Vulkan loader) with each piece
 * taken away: an ICD manifest naming a missing library, an ICD library lacking a dependency
 * (built here with clang), no loadable loader (an empty libvulkan.so.1 first on
 * LD_LIBRARY_PATH), and this machine's own state (lavapipe only: a software adapter); last,
 * `ragen-bench list scorers` printing the same line.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { diagnose, NVIDIA_PACKAGES, type VulkanFacts } from "../../plugins/webgpu/diagnose.ts"
import { probeWebGpu } from "../../plugins/webgpu/doctor.ts"
import { runCli } from "../helpers/cli.ts"
import { deno, noAdapterReason } from "./helpers.ts"

const LVP = { manifest: "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", library: "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so" }
const NV = { manifest: "/etc/vulkan/icd.d/nvidia_icd.json", library: "libGLX_nvidia.so.0" }
const facts = (f: Partial<VulkanFacts>): VulkanFacts => ({ searched: ["/usr/share/vulkan/icd.d"], icds: [LVP], loaderLog: [], ...f })
const oneLine = (s: string) => expect(s).not.toContain("\n")

describe("diagnose (injected facts)", () => {
  test("a hardware adapter is fine", () => {
    const d = diagnose(facts({ adapter: { name: "NVIDIA H200", software: false }, icds: [NV] }))
    expect(d).toEqual({ ok: true, line: "adapter: NVIDIA H200" })
  })
  test("no loader", () => {
    const d = diagnose(facts({ loaderError: "Could not open library: libvulkan.so.1: cannot open shared object file: No such file or directory", icds: [] }))
    expect(d.ok).toBe(false)
    expect(d.line).toMatch(/^no Vulkan loader \(libvulkan\.so\.1 does not load: libvulkan\.so\.1: cannot open.*\); apt-get install -y libvulkan1/)
    oneLine(d.line)
  })
  test("no ICD manifest: names where it looked and VK_DRIVER_FILES", () => {
    const d = diagnose(facts({ icds: [], searched: ["/etc/vulkan/icd.d", "/usr/share/vulkan/icd.d"] }))
    expect(d.line).toMatch(/^no Vulkan ICD manifest \(looked in \/etc\/vulkan\/icd\.d, \/usr\/share\/vulkan\/icd\.d\); point VK_DRIVER_FILES at .*nvidia_icd\.json/)
    const v = diagnose(facts({ icds: [], searched: ["/x/none.json"], driverVar: "VK_DRIVER_FILES" }))
    expect(v.line).toContain("looked in VK_DRIVER_FILES=/x/none.json")
  })
  test("an ICD whose library is missing", () => {
    const d = diagnose(facts({ icds: [{ ...NV, error: "Could not open library: libGLX_nvidia.so.0: cannot open shared object file: No such file or directory" }] }))
    expect(d.line).toMatch(/^ICD \/etc\/vulkan\/icd\.d\/nvidia_icd\.json names libGLX_nvidia\.so\.0, which is not there .*; install the driver that ships it or point VK_DRIVER_FILES/)
  })
  test("NVIDIA's ICD lacking libglvnd: the library it lacks and the issue's packages", () => {
    const d = diagnose(facts({ icds: [{ ...NV, error: "Could not open library: libGLdispatch.so.0: cannot open shared object file: No such file or directory" }, LVP] }))
    expect(d.line).toBe(`ICD ${NV.manifest}: libGLX_nvidia.so.0 does not load: it lacks libGLdispatch.so.0; apt-get install -y ${NVIDIA_PACKAGES}`)
  })
  test("another ICD lacking a known library: its package", () => {
    const d = diagnose(facts({ icds: [{ manifest: "/m.json", library: "/lib/libvulkan_x.so", error: "libX11.so.6: cannot open shared object file: No such file or directory" }] }))
    expect(d.line).toEndWith("it lacks libX11.so.6; apt-get install -y libx11-6")
  })
  test("an ICD that loads but that the loader cannot use (the issue's vkCreateInstance line)", () => {
    const log = ["ERROR: Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr' for ICD libGLX_nvidia.so.0"]
    const d = diagnose(facts({ icds: [NV, LVP], loaderLog: log, adapter: { name: "llvmpipe (LLVM 15.0.6, 256 bits)", software: true } }))
    expect(d.line).toStartWith(
      "only a software adapter (llvmpipe (LLVM 15.0.6, 256 bits)) because ICD /etc/vulkan/icd.d/nvidia_icd.json: the loader cannot use libGLX_nvidia.so.0 (ERROR: Could not get 'vkCreateInstance'"
    )
    expect(d.line).toEndWith(`apt-get install -y ${NVIDIA_PACKAGES}`)
  })
  test("a library that is no Vulkan driver", () => {
    const d = diagnose(facts({ icds: [{ manifest: "/m.json", library: "libz.so.1", noEntryPoint: true }] }))
    expect(d.line).toMatch(/^ICD \/m\.json: libz\.so\.1 exports no vk_icdGetInstanceProcAddr/)
  })
  test("a software adapter only", () => {
    const d = diagnose(facts({ adapter: { name: "llvmpipe (LLVM 15.0.6, 256 bits)", software: true } }))
    expect(d.ok).toBe(false)
    expect(d.line).toMatch(/^only a software adapter \(llvmpipe.*no hardware ICD found a GPU \(ICDs: libvulkan_lvp\.so\); on an NVIDIA server: apt-get install -y libvulkan1 .* VK_DRIVER_FILES/)
  })
  test("every piece loads and still no adapter: the loader's last line", () => {
    const d = diagnose(facts({ loaderLog: ["ERROR: vkCreateInstance: Found no drivers!"] }))
    expect(d.line).toBe("no adapter although libvulkan.so.1 and 1 ICD(s) load (loader: ERROR: vkCreateInstance: Found no drivers!); run with VK_LOADER_DEBUG=all for the loader's whole log")
  })
})

// The real probe needs Deno (and, for the machine's own state, Mesa); under CI both are installed.
const haveDeno = spawnSync(deno, ["--version"]).status === 0
if (!haveDeno && process.env.CI === "true") throw new Error(`the probe tests need ${deno} (npm install)`)
const dir = mkdtempSync(join(tmpdir(), "ragen-probe-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const manifest = (name: string, library: string) => {
  const p = join(dir, name)
  writeFileSync(p, JSON.stringify({ file_format_version: "1.0.0", ICD: { library_path: library, api_version: "1.3.0" } }))
  return p
}
// Vulkan only: Deno would otherwise fall back to GL (Mesa's llvmpipe there)
const VK = { DENO_WEBGPU_BACKEND: "vulkan" }

describe("the probe on this machine's real loader (Deno child)", () => {
  test.skipIf(!haveDeno)(
    "an ICD manifest naming a missing library",
    async () => {
      const m = manifest("missing_icd.json", join(dir, "no-such-dir", "libvulkan_gone.so"))
      const d = await probeWebGpu({ env: { ...VK, VK_DRIVER_FILES: m } })
      expect(d.ok).toBe(false)
      expect(d.line).toStartWith(`ICD ${m} names ${join(dir, "no-such-dir", "libvulkan_gone.so")}, which is not there (`)
      oneLine(d.line)
    },
    60_000
  )

  test.skipIf(!haveDeno)(
    "an ICD library lacking a dependency names the library it lacks",
    async () => {
      const clang = spawnSync("clang", ["--version"]).status === 0
      if (!clang) {
        if (process.env.CI === "true") throw new Error("clang is missing (apt-get install -y clang)")
        console.log("skipping the missing-dependency probe: clang is missing")
        return
      }
      const b = join(dir, "build")
      mkdirSync(b)
      writeFileSync(join(b, "dep.c"), "int ragen_dep(void) { return 0; }\n")
      writeFileSync(join(b, "icd.c"), "int ragen_dep(void);\nvoid *vk_icdGetInstanceProcAddr(void *i, const char *n) { (void)i; (void)n; ragen_dep(); return 0; }\n")
      const cc = (args: string[]) => expect(spawnSync("clang", args, { cwd: b, encoding: "utf8" }).status).toBe(0)
      cc(["-shared", "-fPIC", "-o", "libragen_probe_dep.so.1", "dep.c"])
      cc(["-shared", "-fPIC", "-o", "libragen_probe_icd.so", "icd.c", "-L.", "-l:libragen_probe_dep.so.1"])
      rmSync(join(b, "libragen_probe_dep.so.1")) // the dependency is gone: dlopen fails naming it
      const m = manifest("dep_icd.json", "./build/libragen_probe_icd.so")
      const d = await probeWebGpu({ env: { ...VK, VK_DRIVER_FILES: m } })
      expect(d.line).toStartWith(`ICD ${m}: libragen_probe_icd.so does not load: it lacks libragen_probe_dep.so.1; install the package that ships libragen_probe_dep.so.1`)
    },
    60_000
  )

  test.skipIf(!haveDeno)(
    "no loadable Vulkan loader",
    async () => {
      const fake = join(dir, "fake-loader")
      mkdirSync(fake)
      writeFileSync(join(fake, "libvulkan.so.1"), "") // found first on LD_LIBRARY_PATH, and not a library
      const d = await probeWebGpu({ env: { ...VK, LD_LIBRARY_PATH: fake } })
      expect(d.line).toMatch(/^no Vulkan loader \(libvulkan\.so\.1 does not load: .*libvulkan\.so\.1: (file too short|invalid ELF header)\); apt-get install -y libvulkan1/)
    },
    60_000
  )

  test.skipIf(!haveDeno)(
    "this machine as it is: a hardware adapter, or lavapipe's software adapter said as such",
    async () => {
      if (noAdapterReason() !== undefined) {
        if (process.env.CI === "true") throw new Error(`the software-adapter probe: ${noAdapterReason()}`)
        console.log(`skipping the software-adapter probe: ${noAdapterReason()}`)
        return
      }
      const d = await probeWebGpu({ env: VK })
      if (d.ok) expect(d.line).toStartWith("adapter: ")
      else expect(d.line).toMatch(/^only a software adapter \(.*(llvmpipe|SwiftShader).*\); no hardware ICD found a GPU \(ICDs: .*lvp.*\); on an NVIDIA server: apt-get install -y libvulkan1/i)
    },
    60_000
  )

  test.skipIf(!haveDeno)(
    "`ragen-bench list scorers` shows the probe's line under the WebGPU scorers",
    () => {
      const m = manifest("list_icd.json", "/nonexistent/libvulkan_list.so")
      const r = runCli(["list", "scorers"], { env: { ...VK, VK_DRIVER_FILES: m }, timeoutMs: 120_000 })
      expect(r.code).toBe(0)
      const here = r.stdout.split("\n").filter((l) => l.trim().startsWith("here: "))
      expect(here.length).toBe(2) // webgpu and auto; the CPU scorer has no probe
      for (const l of here) expect(l.trim()).toStartWith(`here: ICD ${m} names /nonexistent/libvulkan_list.so, which is not there`)
    },
    120_000
  )
})
