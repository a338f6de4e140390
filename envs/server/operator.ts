/**
 * Operator settings of the env server: env options that name a file or a URL (a dataset path,
 * a retrieval server, a WebShop server) are chosen by the operator, never by a client. The
 * operator names the allowed files and URLs on `env serve`'s command line
 * (`--resource NAME=PATH|URL`); in a create request a client gives a NAME in such a field and
 * the server substitutes the operator's value before the options are decoded. The reply (the
 * session's resolved config) records the name and a content hash, never the path or URL.
 *
 * Which fields are operator settings: the env spec's `externalOptions` (core/contracts/env.ts);
 * a file field is loaded ahead without blocking by the loader PREPARE names for it, if any.
 */
import { createHash } from "node:crypto"
import type { EnvSpec } from "../../core/contracts/index.ts"
import { MiB, readRegularFile } from "../../core/host.ts"
import { loadMetaMathQAAsync } from "../metamathqa/dataset.ts"

export type ResourceKind = "file" | "url"

export interface OperatorField {
  /** Path of the field in the env's options, e.g. ["retriever", "url"]. */
  readonly path: ReadonlyArray<string>
  readonly kind: ResourceKind
  /** Load the resource without blocking the event loop before the env is built (file fields). */
  readonly prepare?: (value: string) => Promise<unknown>
}

/** Loaders of file fields, by env id and field path, run before the env is built. */
const PREPARE: Readonly<Record<string, (value: string) => Promise<unknown>>> = {
  "metamathqa-v1 dataPath": loadMetaMathQAAsync
}

export const operatorFieldsOf = (spec: EnvSpec<any>): ReadonlyArray<OperatorField> =>
  (spec.externalOptions ?? []).map((f) => {
    const prepare = PREPARE[`${spec.id} ${f.path.join(".")}`]
    return prepare ? { ...f, prepare } : f
  })

export interface Resource {
  readonly name: string
  readonly kind: ResourceKind
  /** The path or URL (never shown to clients). */
  readonly value: string
  /** sha256 of the file's bytes, or of the URL text. */
  readonly sha256: string
}

export type Resources = ReadonlyMap<string, Resource>

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** A file resource is read whole once at startup (hashed); the dataset loaders cap it again. */
export const MAX_RESOURCE_BYTES = 512 * MiB

/** "--resource NAME=PATH|URL" values → (name, kind, value); a value with http(s):// is a URL. */
export const parseResourceFlags = (pairs: ReadonlyArray<string>): { ok: true; value: Array<{ name: string; kind: ResourceKind; value: string }> } | { ok: false; message: string } => {
  const out: Array<{ name: string; kind: ResourceKind; value: string }> = []
  for (const p of pairs) {
    const i = p.indexOf("=")
    const name = i > 0 ? p.slice(0, i) : ""
    const value = i > 0 ? p.slice(i + 1) : ""
    if (!NAME.test(name) || value === "") {
      return { ok: false, message: `--resource "${p}" must be NAME=PATH or NAME=URL with NAME of letters, digits, ".", "_", "-", e.g. --resource metamath=data/MetaMathQA-395K.json` }
    }
    if (out.some((r) => r.name === name)) return { ok: false, message: `--resource ${name} is given twice; give each name once` }
    let kind: ResourceKind = "file"
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      let u: URL
      try {
        u = new URL(value)
      } catch {
        return { ok: false, message: `--resource ${name}: "${value}" is not a valid URL` }
      }
      if (u.protocol !== "http:" && u.protocol !== "https:") return { ok: false, message: `--resource ${name}: only http(s) URLs are allowed, got ${u.protocol}` }
      kind = "url"
    }
    out.push({ name, kind, value })
  }
  return { ok: true, value: out }
}

const sha256 = (data: Uint8Array | string): string => createHash("sha256").update(data).digest("hex")

/** Read (async, size-capped, regular files only) and hash each resource; the error names it. */
export const loadResources = async (specs: ReadonlyArray<{ name: string; kind: ResourceKind; value: string }>, maxBytes = MAX_RESOURCE_BYTES): Promise<Map<string, Resource>> => {
  const out = new Map<string, Resource>()
  for (const s of specs) {
    if (s.kind === "url") {
      out.set(s.name, { ...s, sha256: sha256(s.value) })
      continue
    }
    const bytes = await readRegularFile(s.value, maxBytes).catch((e: Error) => {
      throw new Error(`--resource ${s.name}: ${e.message}`)
    })
    out.set(s.name, { ...s, sha256: sha256(bytes) })
  }
  return out
}

export interface Resolved {
  /** The client's options with each operator field's name replaced by the operator's value. */
  readonly options: Record<string, unknown>
  /** Field path → {name, sha256}, for the reply. */
  readonly used: Record<string, { name: string; sha256: string }>
  readonly prepare: ReadonlyArray<() => Promise<unknown>>
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const namesOf = (resources: Resources, kind: ResourceKind): string => {
  const names = [...resources.values()]
    .filter((r) => r.kind === kind)
    .map((r) => r.name)
    .sort()
  return names.length > 0 ? `one of: ${names.join(", ")}` : `none is offered by this server (the operator adds them with --resource NAME=${kind === "file" ? "PATH" : "URL"})`
}

/**
 * Replace each operator field the client set by the operator's value for the name it gave.
 * A field that is not a known name of the right kind is refused before anything is read.
 */
export const resolveOperatorOptions = (spec: EnvSpec<any>, raw: Record<string, unknown>, resources: Resources): { ok: true; value: Resolved } | { ok: false; message: string } => {
  const fields = operatorFieldsOf(spec)
  if (fields.length === 0) return { ok: true, value: { options: raw, used: {}, prepare: [] } }
  const options: Record<string, unknown> = { ...raw }
  const used: Record<string, { name: string; sha256: string }> = {}
  const prepare: Array<() => Promise<unknown>> = []
  for (const f of fields) {
    // Walk to the parent object, copying it so the client's object is not changed.
    let node: Record<string, unknown> = options
    let present = true
    for (const seg of f.path.slice(0, -1)) {
      const next = node[seg]
      if (next === undefined) {
        present = false
        break
      }
      if (!isObject(next)) {
        present = false // the options decoder reports the wrong type
        break
      }
      node[seg] = { ...next }
      node = node[seg] as Record<string, unknown>
    }
    const key = f.path[f.path.length - 1]!
    if (!present || !(key in node)) continue
    const dotted = f.path.join(".")
    const v = node[key]
    if (v === "") continue // "" = unset (metamathqa's built-in generator): nothing is read
    const r = typeof v === "string" ? resources.get(v) : undefined
    if (!r || r.kind !== f.kind) {
      const shown = typeof v === "string" ? JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v) : typeof v
      return {
        ok: false,
        message: `options.${dotted} is an operator setting: give the name of a ${f.kind === "file" ? "file" : "URL"} this server offers (${namesOf(resources, f.kind)}), not ${shown}`
      }
    }
    node[key] = r.value
    used[dotted] = { name: r.name, sha256: r.sha256 }
    if (f.prepare) prepare.push(() => f.prepare!(r.value))
  }
  return { ok: true, value: { options, used, prepare } }
}
