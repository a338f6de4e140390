import { definePlugin } from "../core/contracts/index.ts"

export default definePlugin({ name: "algorithms", version: "0.1.0" })
