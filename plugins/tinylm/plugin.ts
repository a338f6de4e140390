import { definePlugin } from "../../core/contracts/index.ts"

export default definePlugin({ name: "plugins-tinylm", version: "0.1.0" })
