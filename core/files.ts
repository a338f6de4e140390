/**
 * Reading a file that someone else named (a dataset path, a results folder, a checkpoint):
 * only a regular file, at most `maxBytes`. The file is opened non-blocking and checked with
 * fstat on the open descriptor, so a FIFO cannot stall the event loop, /dev/zero cannot grow
 * memory without bound, and a path swapped between the check and the read changes nothing.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs"
import { open } from "node:fs/promises"

export const MiB = 1 << 20

/** Why a file was refused; `message` names the path and the limit. */
export class FileReadError extends Error {
  override readonly name = "FileReadError"
  constructor(
    readonly path: string,
    message: string,
    readonly code?: string
  ) {
    super(message)
  }
}

// O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)
// O_NOFOLLOW: a symbolic link in place of the file is refused (ELOOP) instead of opened.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0

export interface ReadOptions {
  /**
   * Refuse a file that is a symbolic link (it is not opened): for files inside a folder someone
   * sent (a results or compact folder), whose links could name any file of the reader's.
   */
  readonly noFollow?: boolean
}

const flagsOf = (options: ReadOptions | undefined): number => (options?.noFollow ? FLAGS | NOFOLLOW : FLAGS)

const refuse = (path: string, kind: string, size: number, maxBytes: number): FileReadError | undefined => {
  if (kind !== "file") return new FileReadError(path, `${path} is not a regular file (${kind})`, "ENOTREG")
  if (size > maxBytes) return new FileReadError(path, `${path} is ${size} bytes, over the limit of ${maxBytes}`, "ETOOBIG")
  return undefined
}

const kindOf = (s: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string =>
  s.isFile() ? "file" : s.isDirectory() ? "a directory" : s.isFIFO() ? "a FIFO" : s.isCharacterDevice() || s.isBlockDevice() ? "a device" : s.isSocket() ? "a socket" : "not a file"

/** Named once: "x.json does not exist", not Node's "ENOENT: no such file or directory, open 'x.json'" after it. */
const why = (e: unknown): string => {
  const code = (e as { code?: string })?.code
  if (code === "ENOENT") return "does not exist"
  if (code === "EACCES" || code === "EPERM") return "cannot be read (permission denied)"
  if (code === "EISDIR") return "is a directory, not a file"
  if (code === "ELOOP") return "is a symbolic link (links are not followed here)"
  return `cannot be read (${String((e as Error)?.message ?? e).replace(/, open '.*'$/, "")})`
}

const wrap = (path: string, e: unknown): FileReadError => (e instanceof FileReadError ? e : new FileReadError(path, `${path} ${why(e)}`, (e as { code?: string })?.code))

/** The bytes of a regular file of at most `maxBytes`, synchronously. */
export const readRegularFileSync = (path: string, maxBytes: number, options?: ReadOptions): Uint8Array => {
  let fd: number
  try {
    fd = openSync(path, flagsOf(options))
  } catch (e) {
    throw wrap(path, e)
  }
  try {
    const st = fstatSync(fd)
    const bad = refuse(path, kindOf(st), st.size, maxBytes)
    if (bad) throw bad
    // Read at most size + 1 bytes: a file that grew since fstat is refused, not read without end.
    const buf = new Uint8Array(Math.min(st.size, maxBytes) + 1)
    let n = 0
    for (;;) {
      const k = readSync(fd, buf, n, buf.length - n, null)
      if (k === 0) break
      n += k
      if (n === buf.length) throw new FileReadError(path, `${path} grew while being read`, "EGREW")
    }
    return buf.subarray(0, n)
  } catch (e) {
    throw wrap(path, e)
  } finally {
    closeSync(fd)
  }
}

/** The bytes of a regular file of at most `maxBytes`, without blocking the event loop. */
export const readRegularFile = async (path: string, maxBytes: number, options?: ReadOptions): Promise<Uint8Array> => {
  let h: Awaited<ReturnType<typeof open>>
  try {
    h = await open(path, flagsOf(options))
  } catch (e) {
    throw wrap(path, e)
  }
  try {
    const st = await h.stat()
    const bad = refuse(path, kindOf(st), st.size, maxBytes)
    if (bad) throw bad
    const buf = new Uint8Array(Math.min(st.size, maxBytes) + 1)
    let n = 0
    for (;;) {
      const { bytesRead } = await h.read(buf, n, buf.length - n, null)
      if (bytesRead === 0) break
      n += bytesRead
      if (n === buf.length) throw new FileReadError(path, `${path} grew while being read`, "EGREW")
    }
    return buf.subarray(0, n)
  } catch (e) {
    throw wrap(path, e)
  } finally {
    await h.close()
  }
}

export const utf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)
