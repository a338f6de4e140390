/**
 * The env server over JSON lines: one request per line, {"op": "create"|"step"|"reset"|"envs"|
 * "close", ...fields}, one response per line: the reply body plus "status" (200/400/404).
 * Lines over `maxLineBytes` are refused (413) while being read, never buffered whole; a blank
 * line is ignored.
 */
import type { Readable, Writable } from "node:stream"
import { DEFAULT_MAX_BODY } from "./http.ts"
import { handle, handleAsync, OPS, type Op, type Reply, type Server } from "./protocol.ts"

type Parsed = { reply: Reply } | { op: Op; rest: Record<string, unknown> }

const parseLine = (line: string, maxLine: number): Parsed => {
  if (Buffer.byteLength(line) > maxLine) return { reply: { status: 413, body: { error: `request line over ${maxLine} bytes` } } }
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

/**
 * Split a byte stream into lines, checking the size while reading: a line longer than
 * `maxLine` bytes is not buffered (its bytes are dropped up to the next newline) and comes out
 * as `null`, so a client cannot grow memory with one endless line.
 */
export async function* boundedLines(input: AsyncIterable<Buffer | string>, maxLine: number): AsyncGenerator<string | null> {
  let parts: Buffer[] = []
  let size = 0
  let over = false
  for await (const chunk of input) {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    for (;;) {
      const nl = buf.indexOf(10)
      const piece = nl < 0 ? buf : buf.subarray(0, nl)
      if (!over) {
        size += piece.length
        if (size > maxLine) {
          over = true
          parts = []
        } else parts.push(piece)
      }
      if (nl < 0) break
      yield over ? null : Buffer.concat(parts).toString("utf8").replace(/\r$/, "")
      parts = []
      size = 0
      over = false
      buf = buf.subarray(nl + 1)
    }
  }
  if (over) yield null
  else if (size > 0) yield Buffer.concat(parts).toString("utf8").replace(/\r$/, "")
}

/** Serve until `input` ends. */
export const serveStdio = async (srv: Server, input: Readable, output: Writable, maxLine = DEFAULT_MAX_BODY): Promise<void> => {
  for await (const line of boundedLines(input, maxLine)) {
    if (line !== null && line.trim() === "") continue
    const r = line === null ? { status: 413, body: { error: `request line over ${maxLine} bytes` } } : await handleLineAsync(srv, line, maxLine)
    output.write(JSON.stringify({ status: r.status, ...r.body }) + "\n")
  }
}
