/**
 * The sweep plugin's presets, by name: `ragen-bench sweep <name>` resolves a name through the
 * registry (every plugin's `presets`), so adding a preset here is adding its module below. Names
 * are the specs' own `name`; a test checks each file here is listed and each name matches its file.
 */
import type { SweepSpecInput } from "../../../core/host.ts"
import collapse from "./collapse.ts"
import entropy from "./entropy.ts"
import fig3 from "./fig3.ts"
import fig6 from "./fig6.ts"
import fig9 from "./fig9.ts"
import kl from "./kl.ts"
import quick from "./quick.ts"
import s10 from "./s10.ts"
import s10NoDualClip from "./s10-no-dual-clip.ts"
import s10Sft3000 from "./s10-sft3000.ts"
import s10Sft3000NoDualClip from "./s10-sft3000-no-dual-clip.ts"
import s10Stable from "./s10-stable.ts"
import sokobanCalibration from "./sokoban-calibration.ts"
import standard from "./standard.ts"
import standardExtended from "./standard-extended.ts"
import standardV1 from "./standard-v1.ts"
import startLearning from "./start-learning.ts"
import suiteCalibration from "./suite-calibration.ts"
import table4 from "./table4.ts"
import table5 from "./table5.ts"
import table6 from "./table6.ts"
import table7 from "./table7.ts"
import trainCheck from "./train-check.ts"
import trainCheckSokoban from "./train-check-sokoban.ts"

export const presets: ReadonlyArray<SweepSpecInput> = [
  collapse,
  entropy,
  fig3,
  fig6,
  fig9,
  kl,
  quick,
  s10,
  s10NoDualClip,
  s10Sft3000,
  s10Sft3000NoDualClip,
  s10Stable,
  sokobanCalibration,
  standard,
  standardExtended,
  standardV1,
  startLearning,
  suiteCalibration,
  table4,
  table5,
  table6,
  table7,
  trainCheck,
  trainCheckSokoban
]
