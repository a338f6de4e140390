/**
 * A small local server for the WebGPU page (Bun): bundles page/main.ts, serves index.html and,
 * when given, a checkpoint and a scores request at /checkpoint.safetensors and /request.json.
 * WebGPU needs a secure origin: http://127.0.0.1 is one; about:blank is not (no navigator.gpu).
 *
 *   bun plugins/webgpu/serve.ts [<checkpoint.safetensors> <request.json>] [--port 8765]
 *
 * then open the printed URL in Chromium started with --enable-unsafe-webgpu (docs/webgpu.md).
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

export interface PageServer {
  readonly url: string
  /** The page URL that loads the served checkpoint and request at once. */
  readonly runUrl: string
  stop(): void
}

export const startPageServer = async (opts: { checkpoint?: Uint8Array; request?: unknown; port?: number } = {}): Promise<PageServer> => {
  const built = await Bun.build({ entrypoints: [join(here, "page", "main.ts")], target: "browser", format: "esm" })
  if (!built.success) throw new Error(`bundling the page failed: ${built.logs.map(String).join("\n")}`)
  const js = await built.outputs[0]!.text()
  const html = readFileSync(join(here, "page", "index.html"), "utf8")
  const files: Record<string, { body: BodyInit; type: string }> = {
    "/": { body: html, type: "text/html; charset=utf-8" },
    "/index.html": { body: html, type: "text/html; charset=utf-8" },
    "/main.js": { body: js, type: "text/javascript; charset=utf-8" }
  }
  if (opts.checkpoint) files["/checkpoint.safetensors"] = { body: opts.checkpoint.slice().buffer, type: "application/octet-stream" }
  if (opts.request !== undefined) files["/request.json"] = { body: JSON.stringify(opts.request), type: "application/json" }
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: opts.port ?? 0,
    fetch: (req) => {
      const f = files[new URL(req.url).pathname]
      return f ? new Response(f.body, { headers: { "content-type": f.type } }) : new Response("not found", { status: 404 })
    }
  })
  const url = `http://127.0.0.1:${server.port}/`
  return { url, runUrl: `${url}?checkpoint=/checkpoint.safetensors&request=/request.json`, stop: () => server.stop(true) }
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const pi = args.indexOf("--port")
  const port = pi >= 0 ? Number(args[pi + 1]) : 8765
  const pos = args.filter((_, i) => i !== pi && i !== pi + 1)
  if (pos.length !== 0 && pos.length !== 2) {
    console.error("usage: bun plugins/webgpu/serve.ts [<checkpoint.safetensors> <request.json>] [--port 8765]")
    process.exit(2)
  }
  const s = await startPageServer({
    port,
    ...(pos.length === 2 ? { checkpoint: new Uint8Array(readFileSync(pos[0]!)), request: JSON.parse(readFileSync(pos[1]!, "utf8")) } : {})
  })
  console.log(pos.length === 2 ? s.runUrl : s.url)
}
