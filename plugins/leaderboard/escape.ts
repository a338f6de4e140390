/** HTML escaping for every string that comes from result files (untrusted submissions). */
const map: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const esc = (s: unknown): string => String(s).replace(/[&<>"']/g, (c) => map[c]!)
