import { definePlugin } from "../../core/contracts/index.ts"

export default definePlugin({ name: "algorithms-filters", version: "0.1.0" })
