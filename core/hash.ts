/** Canonical JSON (sorted keys, no undefined) and its content hash: the run id. */
import { createHash } from "node:crypto"

export const canonicalJson = (value: unknown): string => {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm)
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {}
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k]
        if (x !== undefined) out[k] = norm(x)
      }
      return out
    }
    return v
  }
  return JSON.stringify(norm(value))
}

export const sha256Hex = (s: string | Uint8Array): string => createHash("sha256").update(s).digest("hex")

/** 12 hex digits of sha256 over the canonical JSON. */
export const contentHash = (value: unknown): string => sha256Hex(canonicalJson(value)).slice(0, 12)
