/**
 * The tags of a turn, the one text format every policy and env shares (docs/design.md §3): the
 * policy writes "<think> z </think><answer> a </answer>". Part of the contracts (plain constants,
 * no import), so a browser bundle such as the WebGPU page's tokenizer takes them without the host.
 */
export const THINK_OPEN = "<think>"
export const THINK_CLOSE = "</think>"
export const ANSWER_OPEN = "<answer>"
export const ANSWER_CLOSE = "</answer>"
