/** Dawn through the `webgpu` npm package (Node, Bun), apart from adapter.ts so browser bundles never see it. */

/** A GPU object from Dawn, or the reason the package does not load. */
export const dawnGpu = async (): Promise<GPU | { reason: string }> => {
  try {
    const m = (await import("webgpu")) as { create: (flags: string[]) => GPU }
    return m.create([])
  } catch (e) {
    return { reason: `dawn: the webgpu package does not load: ${(e as Error).message.split("\n")[0]}` }
  }
}
