/**
 * The page's submission section: how to run the suite on your filter, what to send, and what
 * makes your runs join the published ones (plugins/leaderboard/reference.ts decides).
 */
export const submitSection = (): string[] => [
  '<h2 id="submit-h">Submit your filter</h2>',
  "<ol>",
  "<li>Write the filter as a plugin file (README, “Write your own filter”) and run it on the standard suite's grid with only the filter axis changed (docs/standard-suite.md, “Your filter beside the baselines”):" +
    '<pre>ragen-bench sweep my-sweep.yaml --plugin ./my-filter.ts --out results/mine\nragen-bench leaderboard results/mine --plugin ./my-filter.ts --out site/mine</pre>Your runs are marked <span class="who-yours">yours</span>; the published ones <span class="who-ref">reference</span>.</li>',
  "<li>Pack the runs as compact records (one small <code>&lt;run id&gt;.json</code> per run: its resolved config, its evaluation lines and its budget sums):<pre>ragen-bench results compact results/mine --out my-records/</pre></li>",
  "<li>Send <code>my-records/</code> and <code>my-filter.ts</code> (a pull request adding them beside <code>plugins/leaderboard/reference/</code>, or any file transfer). Anyone can rebuild this page from them, and check a sample bit for bit on the recorded kernel build, after reading <code>my-filter.ts</code> (<code>--plugin</code> runs its code):" +
    "<pre>ragen-bench leaderboard verify my-records/ --sample 1 --plugin ./my-filter.ts --marks my-marks/\nragen-bench leaderboard my-records/ --marks my-marks/ --out site/</pre>" +
    "It re-runs one record from its resolved config, compares its curves exactly, says why any run could not be compared (a plugin not loaded, another kernel build: with the command that re-runs on the recorded one), exits non-zero when nothing matched or nothing could be checked, and writes its marks to <code>my-marks/</code>, the checker's own folder, never into <code>my-records/</code>; the build shows them (<code>--marks</code>), tied to each record's content.</li>",
  "</ol>",
  "<p><b>What makes runs join.</b> A reference run stands beside yours when its resolved config is equal to one of yours apart from the seed, the filter and its options, the kernel backend and the sampling stream, under the same results-semantics version; otherwise the build prints what differs (config key, both values). Runs that share a seed share the warm start, the training instances and the random streams, so the comparison with <code>none</code> pairs by seed: run the suite's seeds.</p>"
]
