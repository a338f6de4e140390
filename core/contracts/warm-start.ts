/**
 * A shipped warm start (docs/decisions.md#issue-17): a policy checkpoint trained by one documented recipe, named by
 * id and content hash in results (never by a file path), so result files stay portable and
 * `leaderboard verify` can trust them. A policy plugin contributes its own (the tinylm plugin's
 * are in plugins/tinylm/warmstarts/, with their manifest).
 */
export interface WarmStart {
  /** Local id, e.g. "frozenlake-tiny". */
  readonly id: string
  readonly description: string
  /** Resolved env and policy ids ("<plugin>/<id>") and options the checkpoint was trained for. */
  readonly env: string
  readonly envOptions: unknown
  readonly policy: string
  /** Policy options (kernel backends aside: they do not change what a checkpoint is). */
  readonly policyOptions: unknown
  /** Resolved trainer options of the recipe (SFT and prompt shape); `auto` matches runs whose prompt shape equals it. */
  readonly recipe: Readonly<Record<string, unknown>>
  /** SHA-256 of the checkpoint file (hex). */
  readonly sha256: string
  /** Where the file is (the plugin resolves it; never recorded in results). */
  readonly path: string
  /** What the recipe's SFT reported, for the step-0 metrics line. */
  readonly report: { readonly steps: number; readonly loss: number; readonly heldOutAcc: number; readonly seconds: number }
}

/** How a run names a warm start: "<id>@<first 12 hex of its SHA-256>". */
export const warmStartRef = (w: Pick<WarmStart, "id" | "sha256">): string => `${w.id}@${w.sha256.slice(0, 12)}`
