/** The charts' and marks' styles, shared by the leaderboard page and the row pages. */
export const CHART_CSS = `
.charts{display:flex;flex-wrap:wrap;gap:.75rem}.charts figure{margin:0;max-width:100%}svg.chart{max-width:100%;height:auto}
.chart .ct{font-size:13px;font-weight:600}.chart .tick,.chart .lbl{font-size:11px;fill:#333}.chart .note-t{font-size:11px}.chart .note-t.strong{font-weight:700}
.chart .grid{stroke:#e4e4e4}.chart .frame{fill:none;stroke:#999}.chart a:hover .lbl{text-decoration:underline}
.legend-line{font-size:12px;margin:.2rem 0}.legend-line .key{display:inline-flex;align-items:center;gap:.25rem;margin-right:.8rem}
.v{font-weight:700;white-space:nowrap}.v-better{color:#0072B2}.v-worse{color:#D55E00}.v-not-separated,.v-cannot-separate{color:#555;font-weight:400}
.pos{color:#0072B2}.neg{color:#D55E00}.who-yours{background:#fff3c4;padding:0 .25rem;border-radius:3px}.who-ref{color:#666}
`.trim()
