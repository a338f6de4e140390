/**
 * The tinylm plugin's public entry for other plugins (plugin.ts is its registration): the policy
 * type, its factory and options, and the tokenizer, for `serve`. Other plugins import this file,
 * never the plugin's other files (test/core/plugin-doors.test.ts).
 */
export type { TinyLMPolicy } from "./policy.ts"
export { makeTinyLM, TinyLMOptions } from "./spec.ts"
export { splitText, Tokenizer } from "./tokenizer.ts"
