/**
 * Bounded env sessions: at most `maxSessions` live at once (the least recently used one is
 * evicted to make room), and a session idle for longer than `ttlMs` expires. Ids are random
 * (node:crypto), not guessable counters. `now` is injectable so tests need no sleeping.
 */
import { randomUUID } from "node:crypto"
import type { Env } from "../../core/contracts/index.ts"

export interface Session {
  readonly id: string
  readonly envId: string
  readonly env: Env
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

  create(envId: string, env: Env): Session {
    this.sweep()
    while (this.map.size >= this.limits.maxSessions) {
      const oldest = this.map.keys().next().value as string
      this.map.delete(oldest)
      this.evicted++
    }
    const s: Session = { id: randomUUID(), envId, env, lastUsed: this.now() }
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
