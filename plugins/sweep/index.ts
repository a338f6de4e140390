/**
 * The sweep plugin's public entry for other plugins (plugin.ts is its registration): what a
 * queue executor needs to run the same worker processes and record failures the same way.
 * Other plugins import this file, never the plugin's other files (test/core/plugin-doors.test.ts).
 */
import { fileURLToPath } from "node:url"

export { writeFailedSummary } from "./failed.ts"
export { CONFIG_ENV, FromWorker, PLUGINS_ENV, ToWorker } from "./protocol.ts"

/** The sweep worker's module (started with the current runtime; protocol.ts over stdio). */
export const sweepWorkerPath = fileURLToPath(new URL("./worker.ts", import.meta.url))
