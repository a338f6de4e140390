/**
 * Answer scoring as in the SQuAD v1.1 evaluation script (evaluate-v1.1.py: normalize_answer,
 * exact_match_score, f1_score): lowercase, drop punctuation, drop the articles a / an / the,
 * collapse whitespace; F1 over the multiset of normalized tokens.
 */
const PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g
const ARTICLES = /\b(a|an|the)\b/g

export const normalizeAnswer = (s: string): string =>
  String(s).toLowerCase().replace(PUNCT, "").replace(ARTICLES, " ").split(/\s+/).filter((w) => w.length > 0).join(" ")

export const exactMatch = (prediction: string, truth: string): boolean => normalizeAnswer(prediction) === normalizeAnswer(truth)

export const f1Score = (prediction: string, truth: string): number => {
  const p = normalizeAnswer(prediction).split(" ").filter((w) => w.length > 0)
  const t = normalizeAnswer(truth).split(" ").filter((w) => w.length > 0)
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

/** SearchQA reward (DESIGN.md §7): 1 for exact match, else F1 when F1 ≥ 0.3, else 0. */
export const answerReward = (prediction: string, truth: string): number => {
  if (exactMatch(prediction, truth)) return 1
  const f = f1Score(prediction, truth)
  return f >= 0.3 ? f : 0
}
