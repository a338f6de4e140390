/**
 * `ragen-bench play <env>`: a person plays an env in the terminal. Reads one action per line
 * from stdin (works piped: `printf '3 * 5 + 7\n' | ragen-bench play countdown`), prints
 * reward / terminated / truncated / info after each, and the return at the end.
 */
import { Console, Effect } from "effect"
import { createInterface } from "node:readline"
import { defineCommand } from "../../core/host.ts"
import { buildEnv, envArg, fmtInfo, intFlag, resetEnv, stepEnv } from "./env-common.ts"

export default defineCommand({
  pattern: "play [env]",
  description: "Play an env yourself in the terminal (one action per line on stdin)",
  options: [
    { flags: "--env <id>", description: "The env (or give it as the argument)" },
    { flags: "--seed <n>", description: "Episode seed (default 0)" },
    { flags: "--option <key=value>", description: "Env option, repeatable (e.g. --option maxAttempts=2)" }
  ],
  examples: ["ragen-bench play countdown --seed 3", "ragen-bench play frozenlake --option successRate=0.8", "printf 'Up\\nLeft\\n' | ragen-bench play sokoban"],
  run: ([positional], opts) =>
    Effect.gen(function* () {
      const envId = yield* envArg(positional, opts.env)
      const seed = yield* intFlag(opts.seed, "--seed", 0)
      const { fullId, spec, env, options } = yield* buildEnv(envId, opts.option)
      yield* Console.log(`${fullId}  seed ${seed}  (type an action and press Enter; Ctrl-D quits)\n`)
      yield* Console.log(spec.instructions(options) + "\n")
      yield* Console.log(yield* Effect.promise(() => resetEnv(env, seed)))
      const ret = yield* Effect.promise(async () => {
        const tty = process.stdin.isTTY === true
        const rl = createInterface({ input: process.stdin, crlfDelay: Infinity })
        let total = 0
        let turn = 0
        const ask = () => {
          if (tty) process.stdout.write("\naction> ")
        }
        ask()
        for await (const line of rl) {
          turn++
          const r = await stepEnv(env, line)
          total += r.reward
          if (!tty) console.log(`\naction> ${line}`)
          console.log(`reward ${r.reward}  terminated ${r.terminated}  truncated ${r.truncated}  info ${fmtInfo(r.info)}`)
          console.log(r.observation)
          if (env.done) break
          ask()
        }
        rl.close()
        return { total, turn, ended: env.done }
      })
      yield* Console.log(`\n${ret.ended ? "episode over" : "input ended before the episode did"} after ${ret.turn} action(s); return ${Number(ret.total.toFixed(6))}`)
    })
})
