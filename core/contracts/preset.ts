/**
 * A sweep preset a plugin ships: a named sweep spec, run as `ragen-bench sweep <name>`. Plugins
 * contribute presets as they contribute commands, in one namespace (a name two plugins give is
 * an error naming both). Written with `defineSweep` (core/sweep/spec.ts) and decoded strictly
 * when a sweep uses it, so a mistake in a preset is reported like one in a spec file.
 */
export interface SweepPreset {
  readonly name: string
  readonly description?: string
  /** The rest of the spec (axes, fixed, budget, ...): checked by core/sweep/spec.ts's decodeSpec. */
  readonly [key: string]: unknown
}
