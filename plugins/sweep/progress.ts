/**
 * The sweep's progress display: runs done/running/failed of total, each running run's step
 * and success, an ETA from the steps done so far. On a TTY a single block redrawn in place;
 * otherwise plain lines (a run starting or ending, and a status line every `plainEveryMs`).
 */
import type { SweepEvent } from "./runner.ts"
import { fmtDuration, terminalSafe } from "../../core/host.ts"

/** A spec's label on one terminal line: no escape sequence, no line break (the block's line count holds). */
const oneLine = (s: string): string => terminalSafe(s).replace(/[\t\n]/g, " ")

interface Running {
  label: string
  step: number
  steps: number
  success: number | null
}

export interface Progress {
  readonly onEvent: (e: SweepEvent) => void
  /** Redraw now (TTY) and stop the timer. */
  readonly close: () => void
}

export const createProgress = (opts: { total: number; totalSteps: number; tty: boolean; write: (s: string) => void; plainEveryMs?: number }): Progress => {
  const t0 = Date.now()
  let done = 0
  let failed = 0
  let skipped = 0
  let stepsDone = 0
  let skippedSteps = 0
  const running = new Map<string, Running>()
  const lastStep = new Map<string, number>()
  let drawnLines = 0
  const eta = (): string => {
    const elapsed = (Date.now() - t0) / 1000
    const remaining = opts.totalSteps - skippedSteps - stepsDone
    if (stepsDone === 0 || elapsed < 1) return "?"
    return fmtDuration((remaining * elapsed) / stepsDone)
  }
  const status = (): string => `runs ${done + skipped}/${opts.total} done (${skipped} skipped), ${running.size} running, ${failed} failed; ETA ${eta()}`
  const runLine = (r: Running): string => `  ${oneLine(r.label)}  step ${r.step}/${r.steps}  success ${r.success === null ? "-" : r.success.toFixed(3)}`
  const draw = (): void => {
    if (!opts.tty) return
    const lines = [status(), ...[...running.values()].map(runLine)]
    // Move up over the previous block, clear to the end of the screen, redraw.
    opts.write((drawnLines > 0 ? `\x1b[${drawnLines}F` : "") + "\x1b[0J" + lines.join("\n") + "\n")
    drawnLines = lines.length
  }
  const say = (text: string): void => {
    // Labels and errors come from the spec and the runs: no escape sequence reaches the terminal.
    const s = terminalSafe(text)
    if (opts.tty) {
      opts.write((drawnLines > 0 ? `\x1b[${drawnLines}F\x1b[0J` : "") + s + "\n")
      drawnLines = 0
      draw()
    } else opts.write(s + "\n")
  }
  const timer = setInterval(() => (opts.tty ? draw() : opts.write(status() + "\n")), opts.tty ? 500 : (opts.plainEveryMs ?? 15000))
  ;(timer as { unref?: () => void }).unref?.()
  const onEvent = (e: SweepEvent): void => {
    const id = e.type === "worker-error" ? "" : e.run.runId
    switch (e.type) {
      case "skip":
        skipped++
        skippedSteps += e.run.config.steps
        break
      case "start":
        running.set(id, { label: e.run.label, step: 0, steps: e.run.config.steps, success: null })
        lastStep.set(id, -1)
        say(`start ${e.run.label}${e.resume ? " (resume)" : ""}  [${e.run.runId}]`)
        break
      case "progress": {
        const r = running.get(id)
        const prev = lastStep.get(id) ?? -1
        // A resumed run starts mid-way: its earlier steps count as skipped work for the ETA.
        if (prev === -1 && e.step > 0) skippedSteps += e.step
        else if (e.step > prev) stepsDone += e.step - Math.max(prev, 0)
        lastStep.set(id, e.step)
        if (r) {
          r.step = e.step
          r.steps = e.steps
          r.success = e.success
        }
        break
      }
      case "done":
        running.delete(id)
        done++
        say(`done  ${e.run.label}  peak success ${e.summary.peakValSuccess === null ? "-" : e.summary.peakValSuccess.toFixed(3)}  ${fmtDuration(e.summary.wallSeconds)}`)
        break
      case "failed":
        running.delete(id)
        failed++
        say(`FAILED ${e.run.label}: ${e.error}`)
        break
      case "worker-error":
        say(`worker ${e.worker}: ${e.error}`)
        break
    }
    if (e.type === "skip") return
    if (opts.tty) draw()
  }
  return {
    onEvent,
    close: () => {
      clearInterval(timer)
      if (opts.tty) draw()
      else opts.write(status() + "\n")
    }
  }
}
