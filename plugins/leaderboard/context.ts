/**
 * What the site knows beyond the leaderboard itself, for the pages to link: where each run's
 * files and episode page are inside the site folder, which runs came from the reference set,
 * each row's drill-down page, the side-by-side episode pages, and the curves' bands over seeds.
 * Every path is relative to the site folder; a page below it prefixes "../".
 */
import { createHash } from "node:crypto"
import type { Bands } from "./plots/bands.ts"
import type { Cell, Row } from "./schema.ts"

export interface ComparePage {
  readonly rowKey: string
  readonly seed: number
  readonly a: string
  readonly b: string
  readonly href: string
}

export interface PageContext {
  readonly bands: Bands
  /** Run id → its folder in the site (runs/<name>/, holding config.json, metrics.jsonl, summary.json). */
  readonly runDirs: ReadonlyMap<string, string>
  /** Run id → its episode page. */
  readonly episodes: ReadonlyMap<string, string>
  /** Run ids read from the reference set (the rest are the user's). */
  readonly reference: ReadonlySet<string>
  /** Row key → its drill-down page. */
  readonly rowPages: ReadonlyMap<string, string>
  readonly compare: ReadonlyArray<ComparePage>
}

export const emptyContext: PageContext = { bands: new Map(), runDirs: new Map(), episodes: new Map(), reference: new Set(), rowPages: new Map(), compare: [] }

/** A file name for any id: the id itself when it is a plain name, else a hash of it (no path escapes its folder). */
export const safeName = (id: string): string => (/^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$/.test(id) ? id : `h-${createHash("sha256").update(id).digest("hex").slice(0, 16)}`)

/** The anchor of a cell on its row page. */
export const cellAnchor = (row: Row, cell: Cell): string => `cell-${row.cells.indexOf(cell)}`

/** A relative link that can never become a javascript: or other scheme URL (each segment percent-encoded). */
export const safeHref = (path: string): string => {
  const [file, frag] = path.split("#", 2) as [string, string | undefined]
  const p = file.split("/").map(encodeURIComponent).join("/")
  const rel = p.startsWith(".") || p.startsWith("/") || p === "" ? p : `./${p}`
  return frag === undefined ? rel : `${rel}#${encodeURIComponent(frag)}`
}
