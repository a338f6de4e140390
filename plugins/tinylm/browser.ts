/**
 * The tinylm plugin's public entry for code that runs in a browser (the WebGPU page): only the
 * pure model-config and tokenizer modules, since index.ts also carries node-only code.
 */
export type { ModelConfig } from "./config.ts"
export { Tokenizer, type TokenizerJson } from "./tokenizer.ts"
