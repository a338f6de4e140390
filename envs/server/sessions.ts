/**
 * Bounded env sessions: at most `maxSessions` live at once (the least recently used one is
 * evicted to make room), and a session idle for longer than `ttlMs` expires. Ids are random
 * (node:crypto), not guessable counters. `now` is injectable so tests need no sleeping.
 */
import { randomUUID } from "node:crypto"
import type { Env } from "../../core/contracts/index.ts"

/** A session's episode as the trainer plays it (protocol.ts): its turn limit, format penalty and turns so far. */
export interface Episode {
  /** The trainer's turn limit: the episode ends (truncated) after this many replies, parsed or not. */
  readonly maxTurns: number
  /** Added to the reward of a turn whose reply does not parse or whose action the env rejects. */
  readonly formatPenalty: number
  /** Replies in this episode so far. */
  turns: number
  /** The observation last shown (a reply that does not parse gets it again, with the format note). */
  observation: string
  /** Terminated, truncated by the action budget, or out of turns. */
  ended: boolean
}

export interface Session {
  readonly id: string
  readonly envId: string
  readonly env: Env
  readonly episode: Episode
  lastUsed: number
}

export interface SessionLimits {
  readonly maxSessions: number
  readonly ttlMs: number
  readonly now?: () => number
}

export class SessionStore {
  // A Map iterates in insertion order: re-inserting on use keeps it in LRU order.
  private readonly map = new Map<string, Session>()
  private readonly now: () => number
  evicted = 0
  expired = 0

  constructor(private readonly limits: SessionLimits) {
    this.now = limits.now ?? Date.now
  }

  get size(): number {
    this.sweep()
    return this.map.size
  }

  private sweep(): void {
    const t = this.now()
    for (const [id, s] of this.map) {
      if (t - s.lastUsed <= this.limits.ttlMs) break // LRU order: the rest are fresher
      this.map.delete(id)
      this.expired++
    }
  }

  create(envId: string, env: Env, episode: Episode): Session {
    this.sweep()
    while (this.map.size >= this.limits.maxSessions) {
      const oldest = this.map.keys().next().value as string
      this.map.delete(oldest)
      this.evicted++
    }
    const s: Session = { id: randomUUID(), envId, env, episode, lastUsed: this.now() }
    this.map.set(s.id, s)
    return s
  }

  get(id: string): Session | undefined {
    this.sweep()
    const s = this.map.get(id)
    if (!s) return undefined
    s.lastUsed = this.now()
    this.map.delete(id)
    this.map.set(id, s)
    return s
  }

  delete(id: string): boolean {
    return this.map.delete(id)
  }
}
