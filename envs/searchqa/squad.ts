/**
 * Answer scoring as in the SQuAD v1.1 evaluation script (evaluate-v1.1.py: normalize_answer,
 * exact_match_score, f1_score): lowercase, drop punctuation, drop the articles a / an / the,
 * collapse whitespace; F1 over the multiset of normalized tokens.
 */
const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g
const ARTICLES = /\b(?:a|an|the)\b/g

// Already normal: lowercase words separated by single spaces, no article (the common case).
const PLAIN = /^[a-z0-9]+(?: [a-z0-9]+)*$/
const HAS_ARTICLE = /\b(?:a|an|the)\b/ // not global: .test keeps no state

export const normalizeAnswer = (s: string): string => {
  const t = String(s)
  if (PLAIN.test(t) && !HAS_ARTICLE.test(t)) return t
  return t
    .toLowerCase()
    .replace(PUNCT, "")
    .replace(ARTICLES, " ")
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .join(" ")
}

export const exactMatch = (prediction: string, truth: string): boolean => normalizeAnswer(prediction) === normalizeAnswer(truth)

/** Tokens of a normalised answer; `merge` may join multi-word units (names) into one token. */
export type Tokens = (normalized: string) => string[]
const words: Tokens = (s) => s.split(" ").filter((w) => w.length > 0)

export const f1Score = (prediction: string, truth: string, tokens: Tokens = words): number => {
  return f1Normalized(tokens(normalizeAnswer(prediction)), tokens(normalizeAnswer(truth)))
}

/** F1 of two already normalised answers. */
const f1Normalized = (p: string[], t: string[]): number => {
  if (p.length === 0 || t.length === 0) return 0
  const counts = new Map<string, number>()
  for (const w of t) counts.set(w, (counts.get(w) ?? 0) + 1)
  let same = 0
  for (const w of p) {
    const c = counts.get(w) ?? 0
    if (c > 0) {
      same++
      counts.set(w, c - 1)
    }
  }
  if (same === 0) return 0
  const precision = same / p.length
  const recall = same / t.length
  return (2 * precision * recall) / (precision + recall)
}

/** SearchQA reward (docs/design.md §7): 1 for exact match, else F1 when F1 ≥ 0.3, else 0. */
export const scoreAnswer = (prediction: string, truth: string, tokens: Tokens = words): { exact: boolean; reward: number; normalized: string } => {
  const t = normalizeAnswer(truth)
  return scoreNormalized(normalizeAnswer(prediction), t, tokens(t), tokens)
}

/** `scoreAnswer` with the truth already normalised and tokenised (envs cache it per question). */
export const scoreNormalized = (p: string, t: string, truthTokens: string[], tokens: Tokens = words): { exact: boolean; reward: number; normalized: string } => {
  if (p === t) return { exact: true, reward: 1, normalized: p }
  const f = f1Normalized(tokens(p), truthTokens)
  return { exact: false, reward: f >= 0.3 ? f : 0, normalized: p }
}

export const answerReward = (prediction: string, truth: string, tokens: Tokens = words): number => scoreAnswer(prediction, truth, tokens).reward
