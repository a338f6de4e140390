/**
 * The page's script (bundled by serve.ts): pick a checkpoint and a scores request (files, or
 * ?checkpoint=URL&request=URL), score on navigator.gpu, show the matrix. The result (or the
 * error) is also left on window.__webgpuResult for the headless test.
 */
import { type PageResult, scoreRequest, type ScoresRequest } from "./run.ts"

const $ = (id: string) => document.getElementById(id)!
const show = (r: PageResult | { error: string }) => {
  ;(window as unknown as { __webgpuResult: unknown }).__webgpuResult = r
  if ("error" in r) {
    $("status").textContent = `error: ${r.error}`
    return
  }
  $("status").textContent = `${r.scores.rows} × ${r.scores.cols} scored on ${r.adapter} in ${r.ms.toFixed(0)} ms`
  const t = $("matrix") as HTMLTableElement
  t.replaceChildren()
  for (let i = 0; i < r.scores.rows; i++) {
    const tr = t.insertRow()
    for (let j = 0; j < r.scores.cols; j++) tr.insertCell().textContent = r.scores.tokenMean[i * r.scores.cols + j]!.toFixed(3)
  }
}

const run = async (ckpt: Uint8Array, req: ScoresRequest) => {
  const gpu = (navigator as unknown as { gpu?: GPU }).gpu
  if (!gpu) return show({ error: "this browser has no navigator.gpu (Chromium: --enable-unsafe-webgpu; a secure origin such as http://127.0.0.1)" })
  $("status").textContent = "scoring…"
  try {
    show(await scoreRequest(gpu, ckpt, req))
  } catch (e) {
    show({ error: (e as Error).message })
  }
}

const q = new URLSearchParams(location.search)
const ck = q.get("checkpoint"),
  rq = q.get("request")
if (ck && rq) {
  const [a, b] = await Promise.all([fetch(ck).then((r) => r.arrayBuffer()), fetch(rq).then((r) => r.json())])
  await run(new Uint8Array(a), b as ScoresRequest)
}
$("go").addEventListener("click", async () => {
  const f1 = ($("checkpoint") as HTMLInputElement).files?.[0],
    f2 = ($("request") as HTMLInputElement).files?.[0]
  if (!f1 || !f2) return show({ error: "choose a checkpoint (.safetensors) and a request (.json)" })
  await run(new Uint8Array(await f1.arrayBuffer()), JSON.parse(await f2.text()) as ScoresRequest)
})
