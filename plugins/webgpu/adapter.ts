/**
 * Getting a GPUDevice from a GPU object: `navigator.gpu` (Deno, browsers) or Dawn's (dawn.ts:
 * the `webgpu` npm package, Node and Bun). Each attempt returns a device or the reason it has none, so the
 * scorer can log why it chose what it chose. The device asks for the adapter's own storage
 * limits (the defaults cap a binding at 128 MiB; a real GPU allows larger chunks).
 */
export interface Acquired {
  readonly device: GPUDevice
  /** "vendor architecture description" as the adapter reports it. */
  readonly adapter: string
  readonly via: "navigator.gpu" | "dawn"
}

export type Attempt = Acquired | { readonly reason: string }

export const describeAdapter = (a: GPUAdapter): string => {
  const i = (a as { info?: GPUAdapterInfo }).info
  const parts = i ? [i.vendor, i.architecture, i.device, i.description].filter((s) => s !== undefined && s !== "" && s !== "0") : []
  return parts.length > 0 ? parts.join(" ") : "unnamed adapter"
}

export const requestDevice = async (gpu: GPU, via: Acquired["via"]): Promise<Attempt> => {
  let adapter: GPUAdapter | null
  try {
    adapter = await gpu.requestAdapter({ powerPreference: "high-performance" })
  } catch (e) {
    return { reason: `${via}: requestAdapter failed: ${(e as Error).message}` }
  }
  if (!adapter) return { reason: `${via}: no adapter` }
  const name = describeAdapter(adapter)
  const L = adapter.limits
  try {
    // timestamp-query when the adapter has it: per-kernel profiles (profile.ts); nothing else uses it
    const requiredFeatures: GPUFeatureName[] = adapter.features.has("timestamp-query") ? ["timestamp-query"] : []
    const device = await adapter.requestDevice({
      requiredFeatures,
      requiredLimits: { maxStorageBufferBindingSize: L.maxStorageBufferBindingSize, maxBufferSize: L.maxBufferSize }
    })
    return { device, adapter: name, via }
  } catch (e) {
    return { reason: `${via}: adapter ${name} refused a device: ${(e as Error).message}` }
  }
}

/** The runtime's own WebGPU, if any. */
export const navigatorGpu = (): GPU | undefined => (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu

/**
 * CPU-emulated adapters (Mesa llvmpipe/lavapipe, SwiftShader, WARP): real WebGPU, right
 * numbers, but slower than the CPU scorer (benchmarks/results/webgpu.md), so `scorer: auto` passes them.
 */
export const isSoftwareAdapter = (name: string): boolean => /llvmpipe|lavapipe|swiftshader|software|microsoft basic render|warp/i.test(name)
