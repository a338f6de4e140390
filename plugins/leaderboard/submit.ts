/**
 * The page's submission section: how to run the suite on your filter, what to send, and what
 * makes your runs join the published ones (plugins/leaderboard/reference.ts decides).
 */
export const submitSection = (): string[] => [
  '<h2 id="submit-h">Submit your filter</h2>',
  "<ol>",
  "<li>Write the filter (README, “Write your own filter”) and run it on the standard suite's grid with only the filter axis changed (docs/standard-suite.md, “Your filter beside the baselines”):" +
    '<pre>ragen-bench sweep my-filter.yaml --out results/mine\nragen-bench leaderboard results/mine --out site/mine</pre>Your runs are marked <span class="who-yours">yours</span>; the published ones <span class="who-ref">reference</span>.</li>',
  "<li>Pack the runs as compact records (one small <code>&lt;run id&gt;.json</code> per run: its resolved config, its evaluation lines and its budget sums):<pre>ragen-bench results compact results/mine --out my-records/</pre></li>",
  "<li>Send <code>my-records/</code> (a pull request adding it beside <code>plugins/leaderboard/reference/</code>, or any file transfer). Anyone can rebuild this page from it, and <code>ragen-bench leaderboard verify</code> re-runs a sample of it bit for bit.</li>",
  "</ol>",
  "<p><b>What makes runs join.</b> A reference run stands beside yours when its resolved config is equal to one of yours apart from the seed, the filter and its options, the kernel backend and the sampling stream, under the same results-semantics version; otherwise the build prints what differs (config key, both values). Runs that share a seed share the warm start, the training instances and the random streams, so the comparison with <code>none</code> pairs by seed: run the suite's seeds.</p>"
]
