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
header{background:#1d2330;color:#fff;padding:10px 18px;display:flex;gap:18px;align-items:baseline}
header h1{font-size:17px;margin:0}
main{display:grid;grid-template-columns:1fr 1fr;gap:14px;padding:14px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:10px 12px;overflow:auto}
section.wide{grid-column:1 / span 2}
h2{font-size:14px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:3px 6px;border-bottom:1px solid #eef0f4;vertical-align:top}
tr.call{cursor:pointer} tr.call:hover{background:#eef4ff} tr.sel{background:#dce8ff}
.complete{color:#1a7f37}.partial{color:#b35900}.error,.refused,.content_error{color:#c62828}
code{font-size:12px} pre{background:#f0f2f5;padding:8px;margin:0;white-space:pre-wrap}
.muted{color:#6b7280}
</style></head><body>
<header><h1>Candor operations</h1><span id="summary" class="muted">loading…</span></header>
<main>
<section><h2>Completeness per tool</h2><div id="chart-tools"></div><table id="tools"><thead><tr><th>tool</th><th>calls</th><th>complete</th><th>partial</th><th>error</th><th>complete&nbsp;rate</th></tr></thead><tbody></tbody></table></section>
<section><h2>Partial and error rate over time (per minute)</h2><div id="chart-time"></div></section>
<section><h2>Top reasons for incomplete results</h2><div id="chart-reasons"></div><table id="reasons"><thead><tr><th>tool</th><th>reason</th><th>count</th></tr></thead><tbody></tbody></table></section>
<section><h2>Top argument issues</h2><table id="issues"><thead><tr><th>code</th><th>layer</th><th>count</th></tr></thead><tbody></tbody></table>
<h2 style="margin-top:12px">Refused actions</h2><table id="refused"><thead><tr><th>tool</th><th>code</th><th>count</th></tr></thead><tbody></tbody></table></section>
<section class="wide"><h2>Recent calls <span class="muted">(click a call for its envelope metadata)</span></h2>
<table id="calls"><thead><tr><th>time</th><th>tool / method</th><th>client</th><th>status</th><th>complete</th><th>codes</th><th>duration</th></tr></thead><tbody></tbody></table></section>
<section class="wide"><h2>Envelope metadata <span id="meta-title" class="muted"></span></h2><pre id="meta">Select a call.</pre></section>
</main>
<script id="initial-feed" type="application/json">)HTML";

constexpr std::string_view page_tail = R"HTML(</script>
<script>
"use strict";
const SVG = "http://www.w3.org/2000/svg";
const state = {seq: 0, calls: [], selected: null};
const COLORS = {complete: "#2da44e", partial: "#e8912d", error: "#d1372e"};
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; }
function svg(tag, attrs, text) { const e = document.createElementNS(SVG, tag); for (const k in attrs) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = String(text); return e; }
function fill(id, rows, cells) { const tb = document.querySelector("#" + id + " tbody"); tb.replaceChildren(); for (const r of rows) { const tr = el("tr"); for (const c of cells(r)) tr.append(c instanceof Node ? c : el("td", c)); tb.append(tr); } }
function codesOf(c) { return [].concat(c.reasons || [], c.warnings || [], (c.issues || []).map(i => i.code), c.rpc_error !== undefined ? ["JSONRPC_" + c.rpc_error] : []); }
function chartTools(tools) {
  const box = document.getElementById("chart-tools"); box.replaceChildren();
  if (!tools.length) return;
  const w = 460, bar = 18, gap = 6, left = 130, h = tools.length * (bar + gap) + 4;
  const s = svg("svg", {width: w, height: h, role: "img", "aria-label": "completeness per tool"});
  tools.forEach((t, i) => {
    const y = i * (bar + gap); let x = left; const scale = (w - left - 10) / Math.max(1, t.calls);
    s.append(svg("text", {x: 0, y: y + 13, "font-size": 12}, t.tool));
    for (const k of ["complete", "partial", "error"]) { const wd = t[k] * scale; if (wd > 0) { const r = svg("rect", {x, y, width: wd, height: bar, fill: COLORS[k]}); r.append(svg("title", {}, k + ": " + t[k])); s.append(r); x += wd; } }
  });
  box.append(s);
}
function chartTime(timeline) {
  const box = document.getElementById("chart-time"); box.replaceChildren();
  const w = 460, h = 150, pad = 28;
  const s = svg("svg", {width: w, height: h, role: "img", "aria-label": "partial rate over time"});
  s.append(svg("line", {x1: pad, y1: h - pad, x2: w - 5, y2: h - pad, stroke: "#999"}));
  s.append(svg("line", {x1: pad, y1: 5, x2: pad, y2: h - pad, stroke: "#999"}));
  s.append(svg("text", {x: 2, y: 12, "font-size": 10}, "100%")); s.append(svg("text", {x: 8, y: h - pad, "font-size": 10}, "0%"));
  if (timeline.length) {
    const step = timeline.length > 1 ? (w - pad - 10) / (timeline.length - 1) : 0;
    for (const [k, key] of [["partial", "partial"], ["error", "error"]]) {
      const pts = timeline.map((m, i) => (pad + i * step).toFixed(1) + "," + ((h - pad) - (h - pad - 5) * (m.calls ? m[key] / m.calls : 0)).toFixed(1));
      s.append(svg("polyline", {points: pts.join(" "), fill: "none", stroke: COLORS[k], "stroke-width": 2}));
      timeline.forEach((m, i) => { const c = svg("circle", {cx: pad + i * step, cy: (h - pad) - (h - pad - 5) * (m.calls ? m[key] / m.calls : 0), r: 3, fill: COLORS[k]}); c.append(svg("title", {}, k + " " + m[key] + "/" + m.calls)); s.append(c); });
    }
    s.append(svg("text", {x: pad, y: h - 8, "font-size": 10}, new Date(timeline[0].start * 1000).toISOString().slice(11, 16) + " UTC"));
  }
  box.append(s);
}
function chartReasons(reasons) {
  const box = document.getElementById("chart-reasons"); box.replaceChildren();
  if (!reasons.length) return;
  const byTool = {}; const codes = [];
  for (const r of reasons) { (byTool[r.tool] = byTool[r.tool] || {})[r.code] = r.count; if (!codes.includes(r.code)) codes.push(r.code); }
  const palette = ["#e8912d", "#8250df", "#0969da", "#bf3989", "#57606a", "#1a7f37"];
  const tools = Object.keys(byTool), w = 460, bar = 16, gap = 6, left = 130;
  const max = Math.max(...tools.map(t => Object.values(byTool[t]).reduce((a, b) => a + b, 0)));
  const s = svg("svg", {width: w, height: tools.length * (bar + gap) + 20 + codes.length * 14, role: "img", "aria-label": "reasons per tool"});
  tools.forEach((t, i) => { const y = i * (bar + gap); let x = left; s.append(svg("text", {x: 0, y: y + 12, "font-size": 12}, t));
    codes.forEach((c, j) => { const n = byTool[t][c] || 0; if (!n) return; const wd = n * (w - left - 10) / max; const r = svg("rect", {x, y, width: wd, height: bar, fill: palette[j % palette.length]}); r.append(svg("title", {}, c + ": " + n)); s.append(r); x += wd; }); });
  codes.forEach((c, j) => { const y = tools.length * (bar + gap) + 10 + j * 14; s.append(svg("rect", {x: left, y: y - 9, width: 10, height: 10, fill: palette[j % palette.length]})); s.append(svg("text", {x: left + 14, y, "font-size": 11}, c)); });
  box.append(s);
}
function showMeta(c) {
  state.selected = c.seq;
  document.getElementById("meta-title").textContent = "— " + (c.tool || c.method) + " #" + c.request_id + " at " + c.time;
  const meta = Object.assign({kind: c.kind, tool: c.tool, method: c.method, contract_version: c.contract_version, action_class: c.action_class,
    status: c.status, issues: c.issues, limits: c.limits, evidence_verdict: c.evidence_verdict, repair_attempt: c.repair_attempt,
    duration_ms: c.duration_ms, bytes_in: c.bytes_in, bytes_out: c.bytes_out}, c.rpc_error !== undefined ? {rpc_error: c.rpc_error} : {}, {envelope: c.metadata});
  document.getElementById("meta").textContent = JSON.stringify(meta, null, 2);
  for (const tr of document.querySelectorAll("tr.call")) tr.classList.toggle("sel", Number(tr.dataset.seq) === c.seq);
}
function render(feed) {
  for (const c of feed.calls) if (c.seq > state.seq) state.calls.push(c);
  state.seq = Math.max(state.seq, feed.seq); state.calls = state.calls.slice(-200);
  const total = feed.tools.reduce((a, t) => a + t.calls, 0), partial = feed.tools.reduce((a, t) => a + t.partial, 0);
  document.getElementById("summary").textContent = total + " tool calls, " + partial + " partial; updated " + new Date().toISOString().slice(11, 19) + " UTC";
  fill("tools", feed.tools, t => [t.tool, t.calls, el("td", t.complete, "complete"), el("td", t.partial, "partial"), el("td", t.error, "error"), (t.calls ? (100 * t.complete / t.calls).toFixed(0) : "0") + "%"]);
  fill("reasons", feed.reasons, r => [r.tool, el("td", r.code, "partial"), r.count]);
  fill("issues", feed.issues, r => [r.code, r.layer, r.count]);
  fill("refused", feed.refused, r => [r.tool, el("td", r.code, "error"), r.count]);
  const tb = document.querySelector("#calls tbody"); tb.replaceChildren();
  for (const c of state.calls.slice().reverse()) {
    const tr = el("tr", undefined, "call" + (c.seq === state.selected ? " sel" : "")); tr.dataset.seq = c.seq;
    tr.append(el("td", c.time.slice(11, 23)), el("td", c.tool || c.method), el("td", (c.client_name || "-") + (c.client_version ? " " + c.client_version : "")),
      el("td", c.status, c.status), el("td", c.complete === null ? "-" : c.complete), el("td", codesOf(c).join(" ")), el("td", c.duration_ms.toFixed(1) + " ms"));
    tr.addEventListener("click", () => showMeta(c)); tb.append(tr);
  }
  chartTools(feed.tools); chartTime(feed.timeline); chartReasons(feed.reasons);
}
async function poll() {
  try { const r = await fetch("/ops/feed?after=" + state.seq, {credentials: "same-origin", cache: "no-store"}); if (r.ok) render(await r.json()); }
  catch (e) { document.getElementById("summary").textContent = "feed unavailable: " + e; }
  setTimeout(poll, 2000);
}
if (location.search.includes("token=")) history.replaceState(null, "", location.pathname + location.hash);
render(JSON.parse(document.getElementById("initial-feed").textContent));
// "#call=SEQ" opens with that call's metadata shown (links from alerts, the browser test).
const wanted = /^#call=(\d+)$/.exec(location.hash);
if (wanted) { const c = state.calls.find(x => x.seq === Number(wanted[1])); if (c) showMeta(c); }
setTimeout(poll, 2000);
</script></body></html>
)HTML";

}  // namespace

std::string console::page(const boost::json::object& initial_feed) {
    auto written = json::to_string(initial_feed);
    const std::string json =
        written ? std::move(*written)
                : std::string(R"({"seq":0,"calls":[],"tools":[],"reasons":[],"issues":[],"refused":[],"timeline":[]})");
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
