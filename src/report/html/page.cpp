// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/page.hpp"

namespace jp::report::html {

std::string_view page_style() {
    return R"css(
:root { --fg: #1f2328; --muted: #5f6670; --rule: #e3e6ea; --accent: #2f5d8a; }
* { box-sizing: border-box; }
html { background: #eef0f3; }
body { margin: 0; color: var(--fg);
       font: 14px/1.45 "DejaVu Sans", "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 22px 34px 40px; background: #fff;
       min-height: 100vh; box-shadow: 0 0 0 1px #dde1e6; }
header.page { border-bottom: 2px solid var(--accent); padding-bottom: 10px; margin-bottom: 8px; }
h1 { font-size: 22px; margin: 0 0 2px; letter-spacing: -0.01em; }
h2 { font-size: 18px; margin: 22px 0 6px; }
section.trace + section.trace { border-top: 2px solid var(--rule); margin-top: 30px; }
h3 { font-size: 16px; margin: 24px 0 6px; }
h4 { font-size: 13.5px; margin: 14px 0 4px; color: var(--muted); font-weight: 600; }
p { margin: 6px 0; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px;
       background: #f3f4f6; padding: 1px 4px; border-radius: 3px; word-break: break-all; }
.muted { color: var(--muted); font-weight: normal; }
.lead { color: var(--muted); margin: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0 4px;
           font-size: 13px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px;
        margin: 6px 0 10px; }
caption { text-align: left; color: var(--muted); font-size: 12.5px; padding-bottom: 4px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--rule); text-align: right;
         white-space: nowrap; }
th { background: #f6f7f9; font-weight: 600; border-bottom: 1px solid #cfd4da; }
th:first-child, td:first-child { text-align: left; }
td.text, th.text { text-align: left; white-space: normal; min-width: 9em; }
table.parts, table.overview { width: 100%; }
tr.node td { font-weight: 600; }
tr.other td { color: var(--muted); font-style: italic; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px;
          border-radius: 2px; vertical-align: 0; }
.prov { display: inline-block; font-size: 11px; line-height: 16px; padding: 0 7px;
        border-radius: 8px; }
.prov.measured { background: #e2f2e6; color: #1e6b34; }
.prov.derived { background: #e4edf8; color: #2b5a8c; }
.prov.estimated { background: #fdebd6; color: #8a4b08; }
.cards { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
.card { border: 1px solid var(--rule); border-radius: 6px; padding: 6px 12px; min-width: 150px; }
.card .k { font-size: 11.5px; color: var(--muted); }
.card .v { font-size: 16px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .s { font-size: 11.5px; color: var(--muted); }
figure { margin: 12px 0 16px; }
figcaption { font-size: 12.5px; color: var(--muted); margin-top: 4px; max-width: 980px; }
figcaption b { color: var(--fg); }
svg { display: block; max-width: 100%; height: auto; overflow: visible; }
svg text { font-family: "DejaVu Sans", "Segoe UI", Roboto, Arial, sans-serif; fill: #30363d; }
svg .tick { font-size: 11px; fill: #4a5058; }
svg .axis-title { font-size: 12px; fill: #30363d; }
svg .lg { font-size: 12px; }
svg .grid { stroke: #e8eaed; stroke-width: 1; }
svg .grid-v { stroke: #f1f2f4; stroke-width: 1; }
svg .axis { stroke: #6b7178; stroke-width: 1; }
svg .phase-name { font-size: 11px; font-weight: 600; fill: #3b4148; }
svg .mark { stroke: #6b7178; stroke-width: 1; stroke-dasharray: 2 3; }
svg .mark-name { font-size: 10px; fill: #5f6670; }
svg .bar-total { font-size: 11px; fill: #30363d; }
svg .group { font-size: 12px; font-weight: 600; }
svg .bin { fill: #7b9cc0; }
svg .jp-cursor line { stroke: #1f2328; stroke-width: 1; stroke-opacity: 0.5; }
svg .jp-cursor text { font-size: 11px; }
.runbar { display: flex; align-items: center; gap: 10px; margin: 10px 0 2px; font-size: 13px; }
.runbar select { font: inherit; padding: 2px 6px; }
.run-facts { font-size: 13px; color: var(--muted); margin-top: 14px; }
.note { font-size: 12.5px; color: #8a4b08; }
ul.notes { font-size: 12.5px; color: var(--muted); margin: 4px 0; padding-left: 18px; }
footer { margin-top: 30px; padding-top: 8px; border-top: 1px solid var(--rule); font-size: 12px;
         color: var(--muted); }
)css";
}

std::string_view page_script() {
    return R"js(
(function () {
  'use strict';
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  each(document.querySelectorAll('select.jp-run-select'), function (sel) {
    sel.addEventListener('change', function () {
      var box = document.getElementById(sel.getAttribute('data-for'));
      if (!box) { return; }
      each(box.querySelectorAll('.run-panel'), function (panel) {
        panel.hidden = panel.getAttribute('data-run') !== sel.value;
      });
    });
  });
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function hms(s) {
    var t = Math.round(s);
    return two(Math.floor(t / 3600)) + ':' + two(Math.floor(t / 60) % 60) + ':' + two(t % 60);
  }
  each(document.querySelectorAll('svg.jp-profile'), function (svg) {
    var cursor = svg.querySelector('.jp-cursor');
    if (!cursor) { return; }
    var line = cursor.querySelector('line');
    var label = cursor.querySelector('text');
    var left = Number(svg.getAttribute('data-left'));
    var width = Number(svg.getAttribute('data-width'));
    var runtime = Number(svg.getAttribute('data-runtime'));
    svg.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var vb = svg.viewBox.baseVal;
      if (!box.width || !vb || !vb.width) { return; }
      var x = (ev.clientX - box.left) * vb.width / box.width;
      var f = (x - left) / width;
      if (f < 0 || f > 1) { cursor.setAttribute('visibility', 'hidden'); return; }
      line.setAttribute('x1', x);
      line.setAttribute('x2', x);
      label.setAttribute('x', f > 0.8 ? x - 6 : x + 6);
      label.setAttribute('text-anchor', f > 0.8 ? 'end' : 'start');
      label.textContent = f.toFixed(3) + ' of runtime \u00b7 ' + hms(f * runtime);
      cursor.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseleave', function () {
      cursor.setAttribute('visibility', 'hidden');
    });
  });
  var ready = document.createElement('div');
  ready.id = 'jp-ready';
  ready.hidden = true;
  document.body.appendChild(ready);
})();
)js";
}

} // namespace jp::report::html
