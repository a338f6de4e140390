/**
 * The tinylm plugin's public entry for other plugins' pure code: the model description (sizes,
 * parameter layout) and the tokenizer. It imports nothing node-only, so the WebGPU scorer's page
 * can bundle it for a browser. The factory and the policy type, which carry node-only code, are
 * exported beside the registration in plugin.ts. Other plugins import these two files only
 * (test/core/plugin-doors.test.ts).
 */
export { checkConfig, type ModelConfig, numel, paddedVocab, parameterShapes } from "./config.ts"
export { splitText, Tokenizer, type TokenizerJson } from "./tokenizer.ts"
