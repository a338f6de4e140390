/**
 * Strings from result files cut to a few hundred characters before they reach the site: a label
 * is repeated on every cell, chart and page, so a 4·10⁶-character filter option would turn an
 * 8 MB record into a site of hundreds of megabytes. A cut string keeps its start and ends with a
 * hash of the whole, so two long labels that share their first few hundred characters stay apart
 * (names pool runs into cells: two filters must never become one by being cut).
 */
import { contentHash } from "../../core/host.ts"

/** Labels (filter names, settings, env and algorithm ids, agents) at most this long. */
export const MAX_LABEL_CHARS = 200
/** Messages (problems, a run's error) at most this long. */
export const MAX_MESSAGE_CHARS = 2000

/** `s` when short enough, else its start, "…" and a hash of the whole (at most `max` characters). */
export const cutLabel = (s: string, max: number = MAX_LABEL_CHARS): string => {
  if (s.length <= max) return s
  const tail = `…(${contentHash(s)})`
  let head = s.slice(0, Math.max(0, max - tail.length))
  // Never leave half of a surrogate pair at the cut.
  if (/[\ud800-\udbff]$/.test(head)) head = head.slice(0, -1)
  return head + tail
}

/** A message cut to MAX_MESSAGE_CHARS. */
export const cutMessage = (s: string): string => cutLabel(s, MAX_MESSAGE_CHARS)
