/**
 * The leaderboard plugin's public entry for other plugins (plugin.ts is its registration): the
 * site writer and compaction flags the sweep command reuses, and the HTML and chart helpers of
 * `diagnose --html`. Other plugins import this file, never the plugin's other files
 * (test/core/plugin-doors.test.ts).
 */
export { LEADERBOARD_KEYS, maxBytesFlag } from "./compact-command.ts"
export { esc } from "./escape.ts"
export { type FilterLabel, specLabels } from "./labels.ts"
export { writeSite } from "./site.ts"
export { lineChart } from "./svg.ts"
export { collectWithReference, REFERENCE_FLAG, referenceDir } from "./join.ts"
