/**
 * The env server over JSON lines: one request per line, {"op": "create"|"step"|"reset"|"envs"|
 * "close", ...fields}, one response per line: the reply body plus "status" (200/400/404).
 * Lines over `maxLineBytes` are refused; a blank line is ignored.
 */
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { DEFAULT_MAX_BODY } from "./http.ts"
import { handle, handleAsync, OPS, type Op, type Reply, type Server } from "./protocol.ts"

type Parsed = { reply: Reply } | { op: Op; rest: Record<string, unknown> }

const parseLine = (line: string, maxLine: number): Parsed => {
  if (line.length > maxLine) return { reply: { status: 413, body: { error: `request line over ${maxLine} bytes` } } }
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch {
    return { reply: { status: 400, body: { error: "request line is not JSON" } } }
  }
  const op = (json as { op?: unknown } | null)?.op
  if (typeof op !== "string" || !OPS.includes(op as Op)) return { reply: { status: 400, body: { error: `field "op" must be one of ${OPS.join(", ")}` } } }
  const { op: _op, ...rest } = json as Record<string, unknown>
  return { op: op as Op, rest }
}

export const handleLine = (srv: Server, line: string, maxLine = DEFAULT_MAX_BODY): Reply => {
  const p = parseLine(line, maxLine)
  return "reply" in p ? p.reply : handle(srv, p.op, p.rest)
}

/** handleLine, awaiting remote-backed envs (protocol.ts handleAsync). */
export const handleLineAsync = (srv: Server, line: string, maxLine = DEFAULT_MAX_BODY): Promise<Reply> => {
  const p = parseLine(line, maxLine)
  return "reply" in p ? Promise.resolve(p.reply) : handleAsync(srv, p.op, p.rest)
}

/** Serve until `input` ends. */
export const serveStdio = async (srv: Server, input: Readable, output: Writable): Promise<void> => {
  const rl = createInterface({ input, crlfDelay: Infinity })
  for await (const line of rl) {
    if (line.trim() === "") continue
    const r = await handleLineAsync(srv, line)
    output.write(JSON.stringify({ status: r.status, ...r.body }) + "\n")
  }
}
