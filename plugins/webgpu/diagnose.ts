/**
 * Why there is no (hardware) WebGPU adapter, in one line with the fix (docs/decisions.md#issue-29). Pure: the
 * facts come from probe.ts (a Deno process that asks navigator.gpu, dlopens the Vulkan loader
 * and each ICD manifest's library, and runs with VK_LOADER_DEBUG=error,warn), so tests can feed
 * each missing piece. In order: a hardware adapter (fine); no Vulkan loader; no ICD manifest;
 * a hardware ICD whose library is missing, lacks a dependency or exports no entry point; only a
 * software adapter (lavapipe, SwiftShader); no adapter with every piece in place.
 */

export interface IcdFacts {
  /** The manifest file. */
  readonly manifest: string
  /** Its ICD.library_path, resolved against the manifest's folder when relative; undefined: unreadable manifest. */
  readonly library?: string
  /** Why the manifest or its library does not load (dlopen's message), or undefined. */
  readonly error?: string
  /** The library loads but exports neither vk_icdGetInstanceProcAddr nor vkGetInstanceProcAddr. */
  readonly noEntryPoint?: boolean
}

export interface VulkanFacts {
  /** The adapter navigator.gpu returned, if any. */
  readonly adapter?: { readonly name: string; readonly software: boolean }
  /** dlopen("libvulkan.so.1"): undefined when it loads, else its message. */
  readonly loaderError?: string
  /** Where manifests were looked for: VK_DRIVER_FILES / VK_ICD_FILENAMES when set, else the loader's folders. */
  readonly searched: ReadonlyArray<string>
  /** Which variable chose `searched`, if one did. */
  readonly driverVar?: string
  readonly icds: ReadonlyArray<IcdFacts>
  /** The loader's own error and warning lines (VK_LOADER_DEBUG=error,warn), noise removed. */
  readonly loaderLog: ReadonlyArray<string>
}

export interface Diagnosis {
  /** A hardware adapter is there. */
  readonly ok: boolean
  /** One line: what is missing and the fix. */
  readonly line: string
}

/** Debian packages of NVIDIA's Vulkan ICD (libGLX_nvidia needs libglvnd and the X client libraries; docs/decisions.md#issue-29). */
export const NVIDIA_PACKAGES = "libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2 libx11-6 libxcb1 libxau6 libxdmcp6 libxext6 libbsd0 libmd0"

/** The Debian package of a library an ICD commonly lacks. */
const PACKAGE_OF: Record<string, string> = {
  "libvulkan.so.1": "libvulkan1",
  "libGLdispatch.so.0": "libglvnd0",
  "libGLX.so.0": "libglx0",
  "libGL.so.1": "libgl1",
  "libEGL.so.1": "libegl1",
  "libOpenGL.so.0": "libopengl0",
  "libGLESv2.so.2": "libgles2",
  "libX11.so.6": "libx11-6",
  "libxcb.so.1": "libxcb1",
  "libXau.so.6": "libxau6",
  "libXdmcp.so.6": "libxdmcp6",
  "libXext.so.6": "libxext6",
  "libbsd.so.0": "libbsd0",
  "libmd.so.0": "libmd0"
}

const SOFTWARE_ICD = /lvp|lavapipe|swiftshader/i
const base = (p: string) => p.slice(p.lastIndexOf("/") + 1)
const VAR_FIX = "point VK_DRIVER_FILES at the driver's manifest (NVIDIA: nvidia_icd.json, in /usr/share/vulkan/icd.d or /etc/vulkan/icd.d)"

/** The library a dlopen message says is missing ("libX.so.6: cannot open shared object file"). */
export const missingLibrary = (error: string): string | undefined => /([^\s:/]+\.so[.\d]*): cannot open shared object file/.exec(error)?.[1]

const fixFor = (library: string, missing: string | undefined): string => {
  if (/nvidia/i.test(library)) return `apt-get install -y ${NVIDIA_PACKAGES}`
  const pkg = missing ? PACKAGE_OF[missing] : undefined
  return pkg ? `apt-get install -y ${pkg}` : `install the package that ships ${missing ?? base(library)}`
}

/** A hardware ICD that does not load, as one line; undefined when every hardware ICD loads. */
const brokenIcd = (f: VulkanFacts): string | undefined => {
  for (const icd of f.icds) {
    if (icd.library && SOFTWARE_ICD.test(icd.library)) continue
    if (icd.library === undefined) return `ICD manifest ${icd.manifest} is unreadable (${icd.error ?? "no ICD.library_path"}); fix or remove it, or ${VAR_FIX}`
    if (icd.error) {
      const lacks = missingLibrary(icd.error)
      if (lacks === undefined || lacks === base(icd.library)) {
        return `ICD ${icd.manifest} names ${icd.library}, which is not there (${icd.error.replace(/^(Could not open library: )+/, "")}); install the driver that ships it or ${VAR_FIX}`
      }
      return `ICD ${icd.manifest}: ${base(icd.library)} does not load: it lacks ${lacks}; ${fixFor(icd.library, lacks)}`
    }
    if (icd.noEntryPoint) return `ICD ${icd.manifest}: ${base(icd.library)} exports no vk_icdGetInstanceProcAddr (not a Vulkan driver); ${VAR_FIX}`
    const failed = f.loaderLog.find((l) => l.includes(base(icd.library!)) && /Could not get|failed|Failed/.test(l))
    if (failed) return `ICD ${icd.manifest}: the loader cannot use ${base(icd.library)} (${failed.trim()}); ${fixFor(icd.library, undefined)}`
  }
  return undefined
}

export const diagnose = (f: VulkanFacts): Diagnosis => {
  if (f.adapter && !f.adapter.software) return { ok: true, line: `adapter: ${f.adapter.name}` }
  if (f.loaderError !== undefined) {
    return {
      ok: false,
      line: `no Vulkan loader (libvulkan.so.1 does not load: ${f.loaderError.replace(/^(Could not open library: )+/, "")}); apt-get install -y libvulkan1 and the GPU's driver (docs/webgpu.md)`
    }
  }
  const broken = brokenIcd(f)
  if (broken) return { ok: false, line: f.adapter ? `only a software adapter (${f.adapter.name}) because ${broken}` : broken }
  if (f.icds.length === 0) {
    const where = f.driverVar ? `${f.driverVar}=${f.searched.join(":")}` : f.searched.join(", ")
    return { ok: false, line: `no Vulkan ICD manifest (looked in ${where}); ${VAR_FIX}; without a GPU: apt-get install -y mesa-vulkan-drivers (lavapipe, software)` }
  }
  if (f.adapter) {
    return {
      ok: false,
      line: `only a software adapter (${f.adapter.name}: the CPU, slower than the CPU scorer); no hardware ICD found a GPU (ICDs: ${f.icds.map((i) => base(i.library ?? i.manifest)).join(", ")}); on an NVIDIA server: apt-get install -y ${NVIDIA_PACKAGES} and ${VAR_FIX}`
    }
  }
  const last = f.loaderLog.at(-1)
  return { ok: false, line: `no adapter although libvulkan.so.1 and ${f.icds.length} ICD(s) load${last ? ` (loader: ${last.trim()})` : ""}; run with VK_LOADER_DEBUG=all for the loader's whole log` }
}
