/**
 * The adapter probe, a Deno script (doctor.ts runs it as `deno run probe.ts` with
 * VK_LOADER_DEBUG=error,warn and reads the loader's lines from its stderr): asks navigator.gpu
 * for an adapter, then dlopens the Vulkan loader and every ICD manifest's library as the loader
 * would find them (VK_DRIVER_FILES / VK_ICD_FILENAMES, else the loader's folders). Prints the
 * facts (diagnose.ts VulkanFacts, without the loader log) as one JSON line on stdout.
 */
import { describeAdapter, isSoftwareAdapter } from "./adapter.ts"
import type { IcdFacts, VulkanFacts } from "./diagnose.ts"

declare const Deno: {
  env: { get(k: string): string | undefined }
  dlopen(path: string, symbols: Record<string, unknown>): { symbols: Record<string, unknown>; close(): void }
  readTextFileSync(path: string): string
  readDirSync(path: string): Iterable<{ name: string; isFile: boolean; isSymlink: boolean }>
  statSync(path: string): { isDirectory: boolean; size: number }
}

const ENTRY = { parameters: ["pointer", "pointer"], result: "pointer", optional: true }
const message = (e: unknown) => String((e as Error)?.message ?? e)
const dir = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf("/")))

/** The loader's manifest folders on Linux (Vulkan-Loader docs/LoaderDriverInterface.md, "Driver Discovery on Linux"). */
const defaultFolders = (): string[] => {
  const env = (k: string) => Deno.env.get(k)
  const home = env("HOME")
  const config = (env("XDG_CONFIG_DIRS") || "/etc/xdg").split(":")
  const data = (env("XDG_DATA_DIRS") || "/usr/local/share:/usr/share").split(":")
  const dataHome = env("XDG_DATA_HOME") || (home ? `${home}/.local/share` : undefined)
  return [...config, "/etc", ...(dataHome ? [dataHome] : []), ...data].filter((d) => d !== "").map((d) => `${d}/vulkan/icd.d`)
}

/** Manifest files of a list of files and folders (a folder: its *.json). */
const manifests = (entries: ReadonlyArray<string>): string[] =>
  entries.flatMap((e) => {
    try {
      if (!Deno.statSync(e).isDirectory) return [e]
      return [...Deno.readDirSync(e)]
        .filter((f) => (f.isFile || f.isSymlink) && f.name.endsWith(".json"))
        .map((f) => `${e}/${f.name}`)
        .sort()
    } catch {
      return []
    }
  })

const icdFacts = (manifest: string): IcdFacts => {
  let library: string
  try {
    if (Deno.statSync(manifest).size > 1 << 16) return { manifest, error: "larger than 64 KiB" }
    const j = JSON.parse(Deno.readTextFileSync(manifest)) as { ICD?: { library_path?: unknown } }
    const lp = j.ICD?.library_path
    if (typeof lp !== "string" || lp === "") return { manifest, error: "no ICD.library_path" }
    // a path with a slash is relative to the manifest's folder; a bare name goes to dlopen's search
    library = lp.startsWith("/") || !lp.includes("/") ? lp : `${dir(manifest)}/${lp}`
  } catch (e) {
    return { manifest, error: message(e) }
  }
  try {
    const lib = Deno.dlopen(library, { vk_icdGetInstanceProcAddr: ENTRY, vkGetInstanceProcAddr: ENTRY })
    const noEntry = lib.symbols.vk_icdGetInstanceProcAddr === null && lib.symbols.vkGetInstanceProcAddr === null
    lib.close()
    return noEntry ? { manifest, library, noEntryPoint: true } : { manifest, library }
  } catch (e) {
    return { manifest, library, error: message(e) }
  }
}

export const gatherFacts = async (): Promise<Omit<VulkanFacts, "loaderLog">> => {
  const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu
  const a = await gpu?.requestAdapter({ powerPreference: "high-performance" }).catch(() => null)
  const adapter = a ? { name: describeAdapter(a), software: isSoftwareAdapter(describeAdapter(a)) || (a.info as { isFallbackAdapter?: boolean }).isFallbackAdapter === true } : undefined
  let loaderError: string | undefined
  try {
    Deno.dlopen("libvulkan.so.1", { vkGetInstanceProcAddr: ENTRY }).close()
  } catch (e) {
    loaderError = message(e)
  }
  const driverVar = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"].find((k) => (Deno.env.get(k) ?? "") !== "")
  const searched = driverVar
    ? Deno.env
        .get(driverVar)!
        .split(":")
        .filter((s) => s !== "")
    : defaultFolders()
  const added = (Deno.env.get("VK_ADD_DRIVER_FILES") ?? "").split(":").filter((s) => s !== "")
  const icds = [...new Set(manifests([...searched, ...added]))].map(icdFacts)
  return { ...(adapter ? { adapter } : {}), ...(loaderError !== undefined ? { loaderError } : {}), searched, ...(driverVar ? { driverVar } : {}), icds }
}

if ((import.meta as { main?: boolean }).main) console.log(JSON.stringify(await gatherFacts()))
