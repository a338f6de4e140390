/**
 * The env server over JSON lines: one request per line, {"op": "create"|"step"|"reset"|"envs"|
 * "close", ...fields}, one response per line: the reply body plus "status" (200/400/404).
 * Lines over `maxLineBytes` are refused; a blank line is ignored.
 */
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { DEFAULT_MAX_BODY } from "./http.ts"
import { handle, OPS, type Op, type Reply, type Server } from "./protocol.ts"

export const handleLine = (srv: Server, line: string, maxLine = DEFAULT_MAX_BODY): Reply => {
  if (line.length > maxLine) return { status: 413, body: { error: `request line over ${maxLine} bytes` } }
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch {
    return { status: 400, body: { error: "request line is not JSON" } }
  }
  const op = (json as { op?: unknown } | null)?.op
  if (typeof op !== "string" || !OPS.includes(op as Op)) return { status: 400, body: { error: `field "op" must be one of ${OPS.join(", ")}` } }
  const { op: _op, ...rest } = json as Record<string, unknown>
  return handle(srv, op as Op, rest)
}

/** Serve until `input` ends. */
export const serveStdio = async (srv: Server, input: Readable, output: Writable): Promise<void> => {
  const rl = createInterface({ input, crlfDelay: Infinity })
  for await (const line of rl) {
    if (line.trim() === "") continue
    const r = handleLine(srv, line)
    output.write(JSON.stringify({ status: r.status, ...r.body }) + "\n")
  }
}
