import { definePlugin } from "../../core/contracts/index.ts"

export default definePlugin({ name: "plugins-scorers", version: "0.1.0" })
