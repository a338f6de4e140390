import { definePlugin } from "../core/contracts/index.ts"

export default definePlugin({ name: "envs", version: "0.1.0" })
