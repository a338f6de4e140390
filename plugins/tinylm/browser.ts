/**
 * The tinylm plugin's public entry for code that may run in a browser (the WebGPU scorer's page,
 * engine and layout): only the pure model description and the tokenizer, since index.ts also
 * carries node-only code.
 */
export { checkConfig, type ModelConfig, numel, paddedVocab, parameterShapes } from "./config.ts"
export { Tokenizer, type TokenizerJson } from "./tokenizer.ts"
