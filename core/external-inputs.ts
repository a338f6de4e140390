/** What in a run config makes a run read a file or reach a URL: the check shared by every place that runs someone else's config. */
// Option names that name a file, a folder or a server.
const EXTERNAL_KEY = /(path|file|dir|url|uri|endpoint|host|init|checkpoint|ckpt|dataset|server|retriever)$/i
const URL_LIKE = /^[a-z][a-z0-9+.-]*:/i
const PATH_LIKE = /^(\/|\.{1,2}[\\/]|~|[a-z]:[\\/])/i
const MAX_DEPTH = 64

/**
 * The places in a recorded config that would make a re-run read a file or reach a URL: a value
 * that is a URL or a path, or a non-empty value under a key that names a file or a server
 * (dataPath, retriever.url, server.url, train.init, policyOptions.baseUrl, …). A config from
 * someone else's results is untrusted: `leaderboard verify` re-runs it only when this is empty
 * or `--allow-external` is given (docs/leaderboard.md), `train --from` likewise, and a queue
 * worker runs such a job only when started with `--allow-files` (docs/cluster.md).
 */
export const externalInputs = (config: unknown): string[] => {
  const out: string[] = []
  const walk = (v: unknown, path: string, key: string, depth = 0): void => {
    if (out.length >= 10) return
    // No config nests this deep; a hostile one must not overflow the stack here.
    if (depth > MAX_DEPTH) return void out.push(`${path} (nested deeper than ${MAX_DEPTH})`)
    if (typeof v === "string") {
      if (URL_LIKE.test(v) || PATH_LIKE.test(v) || (v !== "" && EXTERNAL_KEY.test(key))) out.push(path)
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, key, depth + 1))
    else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (EXTERNAL_KEY.test(k) && x !== null && typeof x === "object") out.push(path ? `${path}.${k}` : k)
        else walk(x, path ? `${path}.${k}` : k, k, depth + 1)
      }
    }
  }
  walk(config, "", "")
  return out
}
