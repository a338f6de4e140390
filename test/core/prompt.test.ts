// core/prompt.ts: the trainer's parse of a completion (parseResponse) and the env server's parse
// of a client's whole reply (parseReply), which differ only in who opens "<think>".
import { describe, expect, test } from "bun:test"
import { FORMAT_NOTE, parseReply, parseResponse, turnPenalty, withFormatNote } from "../../core/prompt.ts"

describe("parseReply: a client's whole reply, read as the trainer reads a completion", () => {
  test("<answer> alone parses (the client's prompt opened no <think>); the trainer's completion needs </think>", () => {
    expect(parseReply("<answer>Up</answer>")).toEqual({ valid: true, reasoning: "", action: "Up" })
    expect(parseReply("  <answer> Up </answer>\n")).toEqual({ valid: true, reasoning: "", action: "Up" })
    expect(parseResponse("<answer>Up</answer>").valid).toBe(false)
  })
  test("with a think tag it is the trainer's parse exactly", () => {
    for (const r of [
      "<think>box above</think> <answer>Up</answer>",
      "box above </think><answer>Up</answer>",
      "<think>x<answer>Up</answer>",
      "<think>a</think>b<answer>Up</answer>",
      "<think><think></think><answer>Up</answer>"
    ]) {
      expect(parseReply(r)).toEqual(parseResponse(r))
    }
    expect(parseReply("<think>box above</think> <answer>Up</answer>")).toEqual({ valid: true, reasoning: "box above", action: "Up" })
  })
  test("a bare action, an empty answer, text before the answer and a nested answer do not parse", () => {
    for (const r of ["Up", "", "<answer></answer>", "I go <answer>Up</answer>", "<answer><answer>Up</answer>", "<answer>Up"]) expect(parseReply(r).valid).toBe(false)
  })
  test("the penalty and the note, as the rollout applies them", () => {
    expect(turnPenalty(true, true, -0.1)).toBe(0)
    expect(turnPenalty(true, false, -0.1)).toBe(-0.1)
    expect(turnPenalty(false, false, -0.5)).toBe(-0.5)
    expect(withFormatNote("obs")).toBe(`${FORMAT_NOTE}\nobs`)
    expect(withFormatNote(withFormatNote("obs"))).toBe(`${FORMAT_NOTE}\nobs`)
  })
})
