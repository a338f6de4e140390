import { describe, expect, test } from "bun:test"
import { runCli } from "../helpers/cli.ts"

describe("ragen-bench train: bad input exits 2 with a clear message before any work", () => {
  const cases: Array<[string[], RegExp]> = [
    [["--env", "nope"], /unknown env "nope"/],
    [["--env", "frozenlake", "--algo", "nope"], /unknown algorithm "nope"/],
    [["--env", "frozenlake", "--filter", "nope"], /unknown filter "nope"/],
    [["--env", "frozenlake", "--G", "1"], /needs at least G = 2/],
    [["--env", "frozenlake", "--P", "0"], /--P must be an integer ≥ 1/],
    [["--env", "frozenlake", "--init", "/nonexistent.ckpt"], /--init/]
  ]
  for (const [args, re] of cases) {
    test(args.join(" "), () => {
      const r = runCli(["train", ...args, "--out", "/tmp/ragen-cli-bad", "--steps", "1"])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(re)
    })
  }
})
