/**
 * The browser page's module (plugins/webgpu/page/run.ts) under Deno's WebGPU, for a Chromium
 * without an adapter: `deno run -A deno-page.ts <checkpoint> <request.json>`; prints the result.
 */
import { readFileSync } from "node:fs"
import { scoreRequest } from "../../plugins/webgpu/page/run.ts"

declare const Deno: { args: string[] }
const gpu = (globalThis as { navigator?: { gpu?: GPU } }).navigator?.gpu
if (!gpu) console.log(JSON.stringify({ error: "deno: no navigator.gpu" }))
else {
  const [ckpt, req] = Deno.args as [string, string]
  const r = await scoreRequest(gpu, new Uint8Array(readFileSync(ckpt)), JSON.parse(readFileSync(req, "utf8")))
  console.log(JSON.stringify(r))
}
