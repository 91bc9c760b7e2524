// SPDX-License-Identifier: BSL-1.0
// The console's single page: HTML, CSS and script inline, no external asset, no CDN. The
// script polls the feed (same origin, the console cookie), keeps the recent calls, and draws
// its charts as inline SVG. Every value is put into the page with textContent, never parsed
// as HTML.
#include <candor/ops/console.hpp>

#include <candor/json/write.hpp>

namespace candor::ops {

namespace {

constexpr std::string_view page_head = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Candor operations console</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
header{background:#1d2330;color:#fff;padding:10px 18px;display:flex;gap:18px;align-items:baseline;flex-wrap:wrap}
header h1{font-size:17px;margin:0}
header .muted{color:#c3c8d2}
main{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:14px;padding:14px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:10px 12px;overflow:auto;min-width:0}
section.wide{grid-column:1 / span 2}
h2{font-size:14px;margin:0 0 8px} h3{font-size:13px;margin:12px 0 6px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #eef0f4;vertical-align:top;overflow-wrap:break-word}
td.num,th.num{text-align:right;white-space:nowrap}
tr.call{cursor:pointer} tr.call:hover{background:#eef4ff} tr.sel{background:#dce8ff}
.complete{color:#1a7f37}.paged{color:#3f7f5a}.incomplete,.partial{color:#b35900}.error,.refused,.content_error{color:#c62828}
code{font-size:12px} pre{background:#f0f2f5;padding:8px;margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:#6b7280}
.filters{display:flex;gap:12px;flex-wrap:wrap;align-items:center;margin:0 0 8px}
.filters label{display:flex;gap:4px;align-items:center;font-size:13px}
.filters select{max-width:220px}
</style></head><body>
<header><h1>Candor operations</h1><span id="summary" class="muted">loading…</span></header>
<main>
<section><h2>Completeness per tool <span class="muted">(a page that more pages follow is <em>paged</em>, not a gap)</span></h2><div id="chart-tools"></div>
<table id="tools"><thead><tr><th>tool</th><th class="num">calls</th><th class="num">complete</th><th class="num">paged</th><th class="num">incomplete</th><th class="num">error</th><th class="num" title="results without a real gap (complete or paged) / results (errors apart)">complete&nbsp;rate</th></tr></thead><tbody></tbody></table></section>
<section><h2>Real gaps and errors per minute <span class="muted">(share of calls)</span></h2><div id="chart-time"></div></section>
<section><h2>Top reasons for real gaps</h2><div id="chart-reasons"></div><table id="reasons"><thead><tr><th>tool</th><th>reason</th><th class="num">count</th></tr></thead><tbody></tbody></table>
<h3>Paging <span class="muted">(more pages follow: not a gap)</span></h3><table id="paging"><thead><tr><th>tool</th><th>reason</th><th class="num">count</th></tr></thead><tbody></tbody></table>
<h3>Cut to fit the byte budget <span class="muted">(pages ended early, strings cut)</span></h3><table id="size-cuts"><thead><tr><th>tool</th><th>code</th><th class="num">count</th></tr></thead><tbody></tbody></table></section>
<section><h2>Top argument issues <span class="muted">(intake, contract, business)</span></h2><table id="issues"><thead><tr><th>code</th><th>layer</th><th class="num">count</th></tr></thead><tbody></tbody></table>
<h3>External checks, gates and server failures</h3><table id="other-issues"><thead><tr><th>group</th><th>code</th><th class="num">count</th></tr></thead><tbody></tbody></table>
<h3>Refused actions</h3><table id="refused"><thead><tr><th>tool</th><th>code</th><th class="num">count</th></tr></thead><tbody></tbody></table></section>
<section class="wide"><h2>Recent calls <span class="muted">(click a call for its envelope metadata)</span></h2>
<div class="filters"><label>tool <select id="f-tool" data-key="tool"></select></label><label>principal <select id="f-principal" data-key="principal"></select></label><label>status <select id="f-status" data-key="status"></select></label><label>reason or code <select id="f-code" data-key="code"></select></label><span id="shown" class="muted"></span></div>
<table id="calls"><thead><tr><th>time</th><th>tool / method</th><th>principal</th><th>session</th><th>client</th><th>status</th><th>codes</th><th class="num">duration</th></tr></thead><tbody></tbody></table></section>
<section class="wide"><h2>Envelope metadata <span id="meta-title" class="muted"></span></h2><pre id="meta">Select a call.</pre></section>
</main>
<script id="initial-feed" type="application/json">)HTML";

constexpr std::string_view page_tail = R"HTML(</script>
<script>
"use strict";
const SVG = "http://www.w3.org/2000/svg";
const FILTERS = ["tool", "principal", "status", "code"];
const state = {seq: 0, calls: [], selected: null, filter: {tool: "", principal: "", status: "", code: ""}, options: {}};
const KINDS = ["complete", "paged", "incomplete", "error"];
const COLORS = {complete: "#2da44e", paged: "#9fd3b0", incomplete: "#e8912d", error: "#d1372e"};
function el(tag, text, cls, title) { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; if (title) e.title = title; return e; }
function svg(tag, attrs, text) { const e = document.createElementNS(SVG, tag); for (const k in attrs) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = String(text); return e; }
function num(v) { return el("td", v, "num"); }
// A name cell: whole on hover, and when its column is narrow it wraps after "_", "/" or ".", not inside a word.
function name(text, cls) { const td = el("td", undefined, cls, text); String(text).split(/(?<=[_/.])/).forEach((part, i) => { if (i) td.append(el("wbr")); td.append(part); }); return td; }
function fill(id, rows, cells, mark) { const tb = document.querySelector("#" + id + " tbody"); tb.replaceChildren(); for (const r of rows) { const tr = el("tr"); if (mark) mark(tr, r); for (const c of cells(r)) tr.append(c instanceof Node ? c : el("td", c)); tb.append(tr); } }
function results(t) { return t.complete + t.paged + t.incomplete; }
function rate(t) { const n = results(t); return n ? Math.round(100 * (t.complete + t.paged) / n) : null; }
function who(c) { return c.principal || "(anonymous)"; }
function codesOf(c) { return [].concat(c.reasons || [], c.warnings || [], (c.issues || []).map(i => i.code), c.rpc_error !== undefined ? ["JSONRPC_" + c.rpc_error] : []); }
// A name in a chart: shown whole unless very long, and whole on hover.
function label(s, text, x, y) { const t = svg("text", {x, y, "font-size": 12}, text.length > 64 ? text.slice(0, 63) + "…" : text); t.append(svg("title", {}, text)); s.append(t); }
function legend(s, keys, colors, y) { let x = 0; for (const k of keys) { s.append(svg("rect", {x, y: y - 9, width: 10, height: 10, fill: colors[k]})); s.append(svg("text", {x: x + 14, y, "font-size": 11}, k)); x += 24 + 7 * k.length; } }
function chartTools(tools) {
  const box = document.getElementById("chart-tools"); box.replaceChildren();
  if (!tools.length) return;
  const w = 460, bar = 14, row = 34, h = tools.length * row + 18;
  const s = svg("svg", {width: w, height: h, role: "img", "aria-label": "completeness per tool"});
  tools.forEach((t, i) => {
    const y = i * row; let x = 0; const scale = (w - 10) / Math.max(1, t.calls);
    label(s, t.tool, 0, y + 12);
    for (const k of KINDS) { const wd = t[k] * scale; if (wd > 0) { const r = svg("rect", {x, y: y + 16, width: wd, height: bar, fill: COLORS[k]}); r.append(svg("title", {}, t.tool + " " + k + ": " + t[k])); s.append(r); x += wd; } }
  });
  legend(s, KINDS, COLORS, h - 4);
  box.append(s);
}
function chartTime(timeline) {
  const box = document.getElementById("chart-time"); box.replaceChildren();
  const w = 460, h = 170, pad = 28, base = h - 40;
  const s = svg("svg", {width: w, height: h, role: "img", "aria-label": "real gaps and errors per minute"});
  s.append(svg("line", {x1: pad, y1: base, x2: w - 5, y2: base, stroke: "#999"}));
  s.append(svg("line", {x1: pad, y1: 5, x2: pad, y2: base, stroke: "#999"}));
  s.append(svg("text", {x: 2, y: 12, "font-size": 10}, "100%")); s.append(svg("text", {x: 8, y: base, "font-size": 10}, "0%"));
  if (timeline.length) {
    const step = timeline.length > 1 ? (w - pad - 10) / (timeline.length - 1) : 0;
    const yOf = (m, k) => base - (base - 5) * (m.calls ? m[k] / m.calls : 0);
    for (const k of ["paged", "incomplete", "error"]) {
      const pts = timeline.map((m, i) => (pad + i * step).toFixed(1) + "," + yOf(m, k).toFixed(1));
      s.append(svg("polyline", Object.assign({points: pts.join(" "), fill: "none", stroke: COLORS[k], "stroke-width": 2}, k === "paged" ? {"stroke-dasharray": "4 3"} : {})));
      timeline.forEach((m, i) => { const c = svg("circle", {cx: pad + i * step, cy: yOf(m, k), r: 3, fill: COLORS[k]}); c.append(svg("title", {}, k + " " + m[k] + "/" + m.calls)); s.append(c); });
    }
    s.append(svg("text", {x: pad, y: base + 14, "font-size": 10}, new Date(timeline[0].start * 1000).toISOString().slice(11, 16) + " UTC"));
  }
  legend(s, ["incomplete", "error", "paged"], COLORS, h - 4);
  box.append(s);
}
function chartReasons(reasons) {
  const box = document.getElementById("chart-reasons"); box.replaceChildren();
  if (!reasons.length) return;
  const byTool = {}; const codes = [];
  for (const r of reasons) { (byTool[r.tool] = byTool[r.tool] || {})[r.code] = r.count; if (!codes.includes(r.code)) codes.push(r.code); }
  const palette = ["#e8912d", "#8250df", "#0969da", "#bf3989", "#57606a", "#1a7f37"];
  const tools = Object.keys(byTool), w = 460, bar = 14, row = 34;
  const max = Math.max(...tools.map(t => Object.values(byTool[t]).reduce((a, b) => a + b, 0)));
  const s = svg("svg", {width: w, height: tools.length * row + 10 + codes.length * 14, role: "img", "aria-label": "real gaps per tool"});
  tools.forEach((t, i) => { const y = i * row; let x = 0; label(s, t, 0, y + 12);
    codes.forEach((c, j) => { const n = byTool[t][c] || 0; if (!n) return; const wd = n * (w - 10) / max; const r = svg("rect", {x, y: y + 16, width: wd, height: bar, fill: palette[j % palette.length]}); r.append(svg("title", {}, t + " " + c + ": " + n)); s.append(r); x += wd; }); });
  codes.forEach((c, j) => { const y = tools.length * row + 8 + j * 14; s.append(svg("rect", {x: 0, y: y - 9, width: 10, height: 10, fill: palette[j % palette.length]})); s.append(svg("text", {x: 14, y, "font-size": 11}, c)); });
  box.append(s);
}
function showMeta(c) {
  state.selected = c.seq;
  document.getElementById("meta-title").textContent = "— " + (c.tool || c.method) + " #" + c.request_id + " at " + c.time;
  const meta = Object.assign({kind: c.kind, tool: c.tool, method: c.method, principal: c.principal, session: c.session, contract_version: c.contract_version, action_class: c.action_class,
    status: c.status, outcome: c.outcome, issues: c.issues, limits: c.limits, evidence_verdict: c.evidence_verdict, repair_attempt: c.repair_attempt,
    duration_ms: c.duration_ms, bytes_in: c.bytes_in, bytes_out: c.bytes_out}, c.rpc_error !== undefined ? {rpc_error: c.rpc_error} : {}, {envelope: c.metadata});
  document.getElementById("meta").textContent = JSON.stringify(meta, null, 2);
  for (const tr of document.querySelectorAll("tr.call")) tr.classList.toggle("sel", Number(tr.dataset.seq) === c.seq);
  writeHash();
}
function valueOf(c, key) { return key === "tool" ? c.tool || c.method : key === "principal" ? who(c) : key === "status" ? c.outcome : null; }
function matches(c) {
  const f = state.filter;
  return FILTERS.every(k => !f[k] || (k === "code" ? codesOf(c).includes(f[k]) : valueOf(c, k) === f[k]));
}
function fillOptions(key) {
  const sel = document.getElementById("f-" + key), cur = state.filter[key];
  const values = new Set(); for (const c of state.calls) for (const v of key === "code" ? codesOf(c) : [valueOf(c, key)]) values.add(v);
  if (cur) values.add(cur);
  const sorted = [...values].sort(), known = JSON.stringify(sorted);
  // Rebuilt only when the values change: a poll does not close a list the operator has open.
  if (state.options[key] !== known) {
    state.options[key] = known;
    const all = el("option", "all"); all.value = ""; sel.replaceChildren(all);
    for (const v of sorted) { const o = el("option", v); o.value = v; sel.append(o); }
  }
  sel.value = cur;
}
function renderCalls() {
  for (const k of FILTERS) fillOptions(k);
  const shown = state.calls.filter(matches);
  document.getElementById("shown").textContent = shown.length + " of " + state.calls.length + " recent calls";
  const tb = document.querySelector("#calls tbody"); tb.replaceChildren();
  for (const c of shown.slice().reverse()) {
    const tr = el("tr", undefined, "call" + (c.seq === state.selected ? " sel" : "")); tr.dataset.seq = c.seq;
    const session = c.session ? c.session.slice(0, 8) + (c.session.length > 8 ? "…" : "") : "-";
    tr.append(el("td", c.time.slice(11, 23)), name(c.tool || c.method), name(who(c)), el("td", session, undefined, c.session),
      el("td", (c.client_name || "-") + (c.client_version ? " " + c.client_version : "")),
      el("td", c.outcome, c.outcome), el("td", codesOf(c).join(" ")), num(c.duration_ms.toFixed(1) + " ms"));
    tr.addEventListener("click", () => showMeta(c)); tb.append(tr);
  }
}
function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  for (const k of FILTERS) state.filter[k] = p.get(k) || "";
  return p.get("call");
}
function writeHash() {
  const p = new URLSearchParams();
  for (const k of FILTERS) if (state.filter[k]) p.set(k, state.filter[k]);
  if (state.selected) p.set("call", state.selected);
  const h = p.toString(); history.replaceState(null, "", location.pathname + (h ? "#" + h : ""));
}
function render(feed) {
  for (const c of feed.calls) if (c.seq > state.seq) state.calls.push(c);
  state.seq = Math.max(state.seq, feed.seq); state.calls = state.calls.slice(-200);
  const sum = k => feed.tools.reduce((a, t) => a + t[k], 0);
  const total = {calls: sum("calls"), complete: sum("complete"), paged: sum("paged"), incomplete: sum("incomplete"), error: sum("error")};
  const r = rate(total);
  document.getElementById("summary").textContent = total.calls + " tool calls: " + (r === null ? "no results" : r + "% of results without a real gap") +
    " (" + total.complete + " complete, " + total.paged + " paged, " + total.incomplete + " incomplete), " + total.error + " errors; updated " + new Date().toISOString().slice(11, 19) + " UTC";
  fill("tools", feed.tools, t => [name(t.tool), num(t.calls), el("td", t.complete, "num complete"), el("td", t.paged, "num paged"), el("td", t.incomplete, "num incomplete"), el("td", t.error, "num error"), num(rate(t) === null ? "-" : rate(t) + "%")],
    (tr, t) => { tr.dataset.tool = t.tool; tr.dataset.rate = rate(t) === null ? "" : rate(t); });
  fill("reasons", feed.reasons, x => [name(x.tool), name(x.code, "incomplete"), num(x.count)]);
  fill("paging", feed.paging, x => [name(x.tool), name(x.code, "paged"), num(x.count)]);
  fill("size-cuts", feed.size_cuts, x => [name(x.tool), name(x.code, "incomplete"), num(x.count)]);
  fill("issues", feed.issues, x => [name(x.code), x.layer, num(x.count)]);
  fill("other-issues", feed.other_issues, x => [x.group, name(x.code, "error"), num(x.count)]);
  fill("refused", feed.refused, x => [name(x.tool), name(x.code, "error"), num(x.count)]);
  renderCalls();
  chartTools(feed.tools); chartTime(feed.timeline); chartReasons(feed.reasons);
}
async function poll() {
  try { const r = await fetch("/ops/feed?after=" + state.seq, {credentials: "same-origin", cache: "no-store"}); if (r.ok) render(await r.json()); }
  catch (e) { document.getElementById("summary").textContent = "feed unavailable: " + e; }
  setTimeout(poll, 2000);
}
if (location.search.includes("token=")) history.replaceState(null, "", location.pathname + location.hash);
// "#call=SEQ" opens with that call's metadata shown, "#tool=…&principal=…&status=…&code=…" with
// those filters set (links from alerts, the browser test).
const wanted = readHash();
for (const k of FILTERS) document.getElementById("f-" + k).addEventListener("change", e => { state.filter[k] = e.target.value; renderCalls(); writeHash(); });
render(JSON.parse(document.getElementById("initial-feed").textContent));
if (wanted) { const c = state.calls.find(x => x.seq === Number(wanted)); if (c) showMeta(c); }
setTimeout(poll, 2000);
</script></body></html>
)HTML";

}  // namespace

std::string console::page(const boost::json::object& initial_feed) {
    auto written = json::to_string(initial_feed);
    const std::string json =
        written
            ? std::move(*written)
            : std::string(
                  R"({"seq":0,"calls":[],"tools":[],"reasons":[],"paging":[],"issues":[],"other_issues":[],"refused":[],"timeline":[]})");
    std::string out(page_head);
    out.reserve(page_head.size() + json.size() + page_tail.size());
    // Inside <script>, "<" could end the element early ("</script>"): escape every one.
    for (char c : json) {
        if (c == '<') out += "\\u003c";
        else out += c;
    }
    out += page_tail;
    return out;
}

}  // namespace candor::ops
