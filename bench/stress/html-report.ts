// The HTML report: one self-contained file (Chart.js's UMD build inlined, no network needed) holding
// every run's data as JSON and a small script that draws throughput and latency (median, 95th, 99th,
// max) over time, one line per run (laid out by chart-layout.ts: a run shorter than an interval is
// a marker, partial intervals do not size the axis), plus a summary table — like cassandra-stress's
// -graph output. Writing a run into an existing report keeps the runs already there, so several
// revisions overlay.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chartLayout } from './chart-layout.js';
import type { ReportData, RunData } from './run-data.js';

const DATA_ID = 'pmemcql-stress-data';
const DATA_PATTERN = new RegExp(`<script id="${DATA_ID}" type="application/json">([\\s\\S]*?)</script>`);

let chartJs: string | undefined;

/** Chart.js's minified UMD build, read from the installed npm package. */
export function chartLibrary(): string {
  if (chartJs === undefined) {
    const entry = createRequire(import.meta.url).resolve('chart.js');
    const code = readFileSync(join(dirname(entry), 'chart.umd.min.js'), 'utf8');
    // Inline <script>: a literal "</script" would end the element early.
    chartJs = code.replace(/<\/script/gi, '<\\/script');
  }
  return chartJs;
}

/** The report data stored in an existing report's HTML, or undefined when there is none. */
export function extractReportData(html: string): ReportData | undefined {
  const m = DATA_PATTERN.exec(html);
  if (!m) return undefined;
  const data = JSON.parse(m[1]!) as ReportData;
  if (!data || !Array.isArray(data.runs)) return undefined;
  return data;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STYLE = `
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px; } .sub { color: #666; margin-bottom: 16px; }
.controls { margin: 12px 0; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; }
.card h2 { font-size: 14px; margin: 4px 0 8px; } .card canvas { width: 100% !important; height: 280px !important; }
table { border-collapse: collapse; margin-top: 16px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: right; white-space: nowrap; }
th { background: #f5f5f5; } td.l, th.l { text-align: left; }
.table { overflow-x: auto; }
`;

// Runs in the page: reads the embedded JSON and draws the charts with Chart.js.
const SCRIPT = `
(function () {
  var chartLayout = ${chartLayout.toString()};
  var data = JSON.parse(document.getElementById('${DATA_ID}').textContent);
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  var metrics = [
    ['opRate', 'Throughput', 'op/s'], ['median', 'Latency median', 'ms'], ['p95', 'Latency 95th percentile', 'ms'],
    ['p99', 'Latency 99th percentile', 'ms'], ['max', 'Latency max', 'ms'], ['p999', 'Latency 99.9th percentile', 'ms'],
    ['mean', 'Latency mean', 'ms'], ['rowRate', 'Row rate', 'row/s']
  ];
  var types = ['total'];
  data.runs.forEach(function (r) { r.opTypes.forEach(function (t) { if (types.indexOf(t) < 0) types.push(t); }); });
  var select = document.getElementById('op');
  types.forEach(function (t) { var o = document.createElement('option'); o.value = t; o.textContent = t; select.appendChild(o); });
  var logScale = document.getElementById('log');
  var grid = document.getElementById('charts');
  var charts = metrics.map(function (m) {
    var card = document.createElement('div'); card.className = 'card';
    var h = document.createElement('h2'); h.textContent = m[1] + ' (' + m[2] + ')'; card.appendChild(h);
    var canvas = document.createElement('canvas'); card.appendChild(canvas); grid.appendChild(card);
    return new Chart(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        animation: false, parsing: false, normalized: true, responsive: true, maintainAspectRatio: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        scales: {
          x: { type: 'linear', min: 0, title: { display: true, text: 'seconds' } },
          y: { type: 'linear', beginAtZero: true, title: { display: true, text: m[2] } }
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: { callbacks: { label: function (c) {
            var p = c.raw;
            return c.dataset.label + ': ' + fmt(p.value, m[2] === 'ms' ? 2 : 0) + ' ' + m[2] + (p.partial ? ' (partial interval)' : '');
          } } }
        },
        elements: { point: { radius: 0, hitRadius: 6 }, line: { borderWidth: 1.5, tension: 0 } }
      }
    });
  });
  function fmt(v, d) { return v == null ? '' : Number(v).toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }); }
  function render() {
    var op = select.value;
    charts.forEach(function (chart, i) {
      var key = metrics[i][0];
      var layout = chartLayout(data.runs, op, key);
      chart.data.datasets = layout.lines.map(function (line) {
        var color = palette[line.run % palette.length];
        var single = line.points.length === 1;
        return {
          label: line.label, borderColor: color, backgroundColor: color, data: line.points,
          pointStyle: line.points.map(function (p) { return p.clipped ? 'triangle' : 'circle'; }),
          pointRadius: line.points.map(function (p) { return p.clipped ? 6 : single ? 5 : 0; })
        };
      });
      var y = chart.options.scales.y;
      if (metrics[i][2] === 'ms' && logScale.checked) { y.type = 'logarithmic'; y.beginAtZero = false; }
      else { y.type = 'linear'; y.beginAtZero = true; }
      y.max = layout.yMax;
      chart.update();
    });
    var body = document.getElementById('summary-rows');
    body.innerHTML = '';
    data.runs.forEach(function (run, j) {
      var s = run.summary[op];
      if (!s) return;
      var tr = document.createElement('tr');
      var cells = [run.revision, run.workload, fmt(s.opRate, 0), fmt(s.pkRate, 0), fmt(s.rowRate, 0), fmt(s.mean, 2),
        fmt(s.median, 2), fmt(s.p95, 2), fmt(s.p99, 2), fmt(s.p999, 2), fmt(s.max, 2), fmt(s.ops, 0), fmt(s.errors, 0),
        fmt(run.durationSeconds, 1), run.threads, run.startedAt.replace('T', ' ').replace(/\\.\\d+Z$/, 'Z'), run.command];
      cells.forEach(function (c, k) {
        var td = document.createElement('td'); td.textContent = c;
        if (k === 0) { td.className = 'l'; td.style.borderLeft = '6px solid ' + palette[j % palette.length]; }
        if (k === 1 || k >= cells.length - 2) td.className = 'l';
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }
  select.addEventListener('change', render);
  logScale.addEventListener('change', render);
  render();
})();
`;

export function renderReport(data: ReportData): string {
  const title = escapeHtml(data.title);
  const revisions = data.runs.map((r) => escapeHtml(r.revision)).join(', ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pmemcql-stress">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${title}</h1>
<div class="sub">${data.runs.length} run(s): ${revisions}</div>
<div class="controls">
<label>Operation <select id="op"></select></label>
<label><input type="checkbox" id="log"> logarithmic latency axis</label>
</div>
<div class="grid" id="charts"></div>
<div class="table"><table>
<thead><tr><th class="l">revision</th><th class="l">workload</th><th>op/s</th><th>pk/s</th><th>row/s</th><th>mean ms</th>
<th>median ms</th><th>95th ms</th><th>99th ms</th><th>99.9th ms</th><th>max ms</th><th>ops</th><th>errors</th>
<th>seconds</th><th>threads</th><th class="l">started</th><th class="l">command</th></tr></thead>
<tbody id="summary-rows"></tbody>
</table></div>
<script id="${DATA_ID}" type="application/json">${jsonForScript(data)}</script>
<script>${chartLibrary()}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/**
 * Writes the run into the report at `file`. With append, the runs of an existing report stay and
 * this one is added after them (a repeated revision name gets a numeric suffix); without, the file
 * is replaced. Returns the number of runs the report now holds.
 */
export function writeReport(file: string, run: RunData, append: boolean, title?: string): number {
  let data: ReportData | undefined;
  if (append && existsSync(file)) {
    data = extractReportData(readFileSync(file, 'utf8'));
    if (!data) throw new Error(`${file} exists but is not a pmemcql-stress report; not overwriting it`);
  }
  data ??= { version: 1, title: title ?? run.title ?? 'pmemcql-stress', runs: [] };
  if (title) data.title = title;
  const names = new Set(data.runs.map((r) => r.revision));
  let revision = run.revision;
  for (let i = 2; names.has(revision); i++) revision = `${run.revision} (${i})`;
  data.runs.push({ ...run, revision });
  writeFileSync(file, renderReport(data));
  return data.runs.length;
}
