/**
 * The env checker now lives in core (core/check-env.ts, public for plugin authors); this keeps
 * the tests' old call shape: `checkEnv(spec, options, seeds)` throws with every problem listed.
 */
import { assertEnv } from "../../core/check-env.ts"
import type { EnvSpec } from "../../core/contracts/index.ts"

export { assertEnv, checkEnv as envProblems } from "../../core/check-env.ts"

export const checkEnv = (spec: EnvSpec, rawOptions: unknown = {}, seeds?: ReadonlyArray<number>): void => assertEnv(spec, rawOptions, seeds ? { seeds } : {})
