/* SPDX-License-Identifier: BSD-3-Clause */
/* report.js — the script of report.html (viewer-export). It reads the report
   model (doc/report.schema.json) from <script id="hc-data"> and draws the
   page: overview, heatmaps (thread/core/socket/numa × all/true/false; SVG
   cells up to 64×64, one canvas above that, hover by mouse position), the
   drill-down of a clicked pair (its data objects, fields and code pairs), the
   sortable objects table with a mini heatmap per object, code pairs, the
   calling-context tree, the threads, the phases over time (a timeline of
   volume per window with the phases marked and the heatmap of the phase
   under the cursor) and the NUMA locality of data objects. Everything large is drawn lazily: a
   tree node's children are built when it is first expanded and long lists come
   in pages, so a 256-thread matrix or a 10^5-node tree keeps the page
   responsive. No framework, no network (the page's Content-Security-Policy
   forbids it). window.hcReport exposes the state to tests. */
"use strict";
(function () {
	/* a failure shows on the page too, not only in the console */
	try {
		draw();
	} catch (e) {
		document.getElementById("app").textContent = "This report could not be drawn: " + e.message;
		throw e;
	}

	function draw() {
		const data = JSON.parse(document.getElementById("hc-data").textContent);
		const app = document.getElementById("app");
		const UNIT = data.unit;
		const KINDS = ["all", "true", "false"];
		const PAGE = 200;          /* rows rendered per page in long lists */
		const SVG_MAX = 64;        /* above this many indexes the heatmap is a canvas */

		/* ---------- small helpers ---------- */

		function el(tag, attrs, ...kids) {
			const e = document.createElement(tag);
			if (attrs) {
				for (const k in attrs) {
					const v = attrs[k];
					if (v === undefined || v === null || v === false) continue;
					if (k === "class") e.className = v;
					else if (k === "text") e.textContent = v;
					else if (k === "style") Object.assign(e.style, v);
					else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
					else e.setAttribute(k, v === true ? "" : v);
				}
			}
			for (const c of kids) {
				if (c === null || c === undefined || c === false) continue;
				e.append(c instanceof Node ? c : document.createTextNode(String(c)));
			}
			return e;
		}

		const SVGNS = "http://www.w3.org/2000/svg";
		function sv(tag, attrs) {
			const e = document.createElementNS(SVGNS, tag);
			for (const k in attrs) e.setAttribute(k, attrs[k]);
			return e;
		}

		function fmtValue(v) {
			if (v === 0) return "0";
			if (UNIT === "ns") {
				const u = ["ns", "us", "ms", "s"];
				let d = v, k = 0;
				while (d >= 1000 && k < 3) { d /= 1000; k++; }
				if (k === 0) return v + " ns";
				return d.toFixed(d < 10 ? 2 : d < 100 ? 1 : 0) + " " + u[k];
			}
			const s = ["", "k", "M", "G", "T", "P", "E"];
			let d = v, k = 0;
			while (d >= 1000 && k < 6) { d /= 1000; k++; }
			if (k === 0) return String(v);
			return d.toFixed(d < 10 ? 2 : d < 100 ? 1 : 0) + " " + s[k];
		}
		function fmtRaw(v) {
			return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",") + " " + UNIT;
		}
		function pct(a, b) { return b ? (100 * a / b).toFixed(1) + "%" : "–"; }
		/* v as a share of what was sampled (data.scale): "12.3%", "0.4%" with
		   the negligible mark (< 1 %), "–" when unknown */
		const SCALE = data.scale || { denominator: null };
		const SHARE_OF = SCALE.basis === "cpu_time" ? "of CPU" : "of acc.";
		function shareOf(v) {
			if (!SCALE.denominator) return null;
			return 100 * v / SCALE.denominator;
		}
		function shareCell(v) {
			const p = shareOf(v);
			if (p === null) return el("td", { class: "num", text: "–" });
			const neg = v > 0 && p < SCALE.negligible_below;
			return el("td", { class: "num share" + (neg ? " negligible" : ""), "data-share": p.toFixed(3),
				title: neg ? "negligible: under " + SCALE.negligible_below + "% of the sampled " +
					(SCALE.basis === "cpu_time" ? "CPU time" : "memory accesses") : null,
				text: (v && p < 0.1 ? "<0.1" : p.toFixed(1)) + "%" + (neg ? " ·" : "") });
		}
		function basename(p) { const k = p.lastIndexOf("/"); return k >= 0 ? p.slice(k + 1) : p; }
		function fmtBytes(b) {
			if (b < 1024) return b + " B";
			if (b < 1048576) return (b / 1024).toFixed(b < 10240 ? 1 : 0) + " KiB";
			return (b / 1048576).toFixed(1) + " MiB";
		}

		/* ---------- tables of the calling-context database ---------- */

		const files = new Map(data.cct.files.map((f) => [f.i, f.name]));
		const procs = new Map(data.cct.procedures.map((p) => [p.i, p]));
		const lms = new Map(data.cct.load_modules.map((l) => [l.i, l.name]));
		const nodes = new Map();
		for (const n of data.cct.nodes) nodes.set(n.id, n);

		function where(n) {
			if (!n || !n.file) return "<unknown>";
			return basename(files.get(n.file) || "?") + ":" + n.line;
		}
		function procName(n) {
			while (n) {
				if (n.type === "PF" || n.type === "A") {
					const p = procs.get(n.proc);
					return p ? p.name : "?";
				}
				n = nodes.get(n.parent);
			}
			return "?";
		}

		/* An access in a C library copy routine (memcpy, memset, strlen...
		   and glibc's CPU-specific variants) is its caller's: the call's
		   line, "via" the routine (lib/report/common.c, copy_routine). */
		const COPY_FAMILIES = ["mem", "str", "stp", "wmem", "wcs", "bcmp", "bzero"];
		function viaCopy(n) {
			let fr = n;
			while (fr && fr.type !== "PF" && fr.type !== "A") fr = nodes.get(fr.parent);
			const p = fr && fr.type === "PF" ? procs.get(fr.proc) : null;
			const lm = fr ? basename(lms.get(fr.lm) || "") : "";
			if (!p || !(lm.startsWith("libc.so") || lm.startsWith("libc-"))) return { n, via: "" };
			const name = p.name.replace(/^_+/, "");
			const call = nodes.get(fr.parent);
			if (!COPY_FAMILIES.some((f) => name.startsWith(f)) || !call || call.type !== "C") return { n, via: "" };
			return { n: call, via: " via " + p.name };
		}

		/* Code pairs merged by source location: each database pair is listed
		   under both ends; keep one per unordered node pair, then sum by
		   "file:line ↔ file:line". */
		function locPairs(pairs) {
			const seen = new Set(), byLoc = new Map();
			for (const p of pairs) {
				const lo = p.p !== null && p.p < p.c ? p.p : p.c;
				const hi = p.p !== null && p.p < p.c ? p.c : p.p;
				const key = lo + "/" + hi;
				if (hi !== null && seen.has(key)) continue;
				seen.add(key);
				const ca = viaCopy(nodes.get(p.c)), cb = p.p !== null ? viaCopy(nodes.get(p.p)) : null;
				let a = where(ca.n) + ca.via;
				let b = cb ? where(cb.n) + cb.via : "<unknown peer>";
				const fa = procName(ca.n);
				const fb = cb ? procName(cb.n) : "";
				let an = fa, bn = fb;
				if (a > b) { [a, b] = [b, a]; [an, bn] = [bn, an]; }
				const lk = a + " ↔ " + b;
				const e = byLoc.get(lk) || { a, b, an, bn, all: 0, true: 0, false: 0 };
				e.all += p.all; e.true += p.true; e.false += p.false;
				byLoc.set(lk, e);
			}
			return [...byLoc.values()].sort((x, y) => y.all - x.all || (x.a + x.b < y.a + y.b ? -1 : 1));
		}

		/* ---------- levels, threads and the mapping between them ---------- */

		const levels = new Map(data.levels.map((l) => [l.level, l]));
		/* threads grouped by start routine (and generation): a level of its
		   own, drawn first when it is smaller than the thread level */
		const TG = data.thread_groups;
		if (TG && TG.groups.length && TG.groups.length < data.threads.length) {
			const mats = {};
			for (const k of KINDS) {
				const V = TG.matrices[k];
				let total = 0, diag = 0;
				V.forEach((row, i) => row.forEach((v, j) => { if (i < j) total += v; else if (i === j) diag += v; }));
				mats[k] = { values: V, total: total + diag, diagonal: diag, unplaced: 0,
					volumes: V.map((row) => row.reduce((a, v) => a + v, 0)),
					file: "the thread matrix summed over the groups" };
			}
			levels.set("group", { level: "group", n: TG.groups.length, shown: null,
				note: "threads grouped by " + TG.by + "; the diagonal is the communication inside a group",
				labels: TG.groups.map((g) => g.name + " ×" + g.count), indexes: null, matrices: mats });
		}
		/* Rows drawn and the index of row i: a large level shows only some. */
		function dim(L) { return L.shown ? L.shown.length : L.n; }
		function orig(L, i) { return L.shown ? L.shown[i] : i; }
		const threadComm = (function () {
			const L = levels.get("thread");
			return data.threads.map((t, i) => {
				const r = {};
				for (const k of KINDS) r[k] = L.matrices[k].volumes[i];
				return r;
			});
		})();

		function parseCpus(s) {
			const out = new Set();
			for (const part of (s || "").split(";")) {
				if (!part) continue;
				const [a, b] = part.split("-").map(Number);
				for (let c = a; c <= (isNaN(b) ? a : b); c++) out.add(c);
			}
			return out;
		}
		/* Indexes of `level` that thread t ran on (through its CPUs). */
		function threadIndexes(level, t) {
			if (level === "thread") return new Set([t]);
			if (level === "group") return new Set([TG.of[t]]);
			const L = levels.get(level), core = levels.get("core");
			if (!L || !L.indexes || !core || !core.indexes) return new Set();
			const host = data.processes[data.threads[t].process].host;
			const cpus = parseCpus(data.threads[t].cpus);
			const out = new Set();
			core.indexes.forEach((c, ci) => {
				if (c.host !== host || !cpus.has(c.cpu)) return;
				if (level === "core") { out.add(ci); return; }
				L.indexes.forEach((x, xi) => {
					if (x.host === host && x[level] !== null && x[level] === c[level]) out.add(xi);
				});
			});
			return out;
		}

		/* ---------- page skeleton ---------- */

		const exe = data.processes.length ? data.processes[0].exe : "";
		app.append(
			el("header", { class: "top" },
				el("h1", null, el("span", { class: "tool", text: "hpcrun-comm" }), " · ", data.program),
				el("div", { class: "sub", text: exe + " — database " + data.database.path + " (" +
					data.database.generator + "), report by " + data.generator })),
			el("nav", { class: "tabs" },
				el("a", { href: "#scale", text: "Scale" }),
				el("a", { href: "#overview", text: "Overview" }),
				el("a", { href: "#advice", text: "Advice" }),
				el("a", { href: "#matrices", text: "Heatmaps" }),
				el("a", { href: "#objects", text: "Data objects" }),
				el("a", { href: "#phases", text: "Phases" }),
				el("a", { href: "#locality", text: "NUMA" }),
				el("a", { href: "#codepairs", text: "Code pairs" }),
				el("a", { href: "#regions", text: "Code regions" }),
				el("a", { href: "#cct", text: "Calling contexts" }),
				el("a", { href: "#threads", text: "Threads" }),
				el("a", { href: "#placement", text: "Placement" })));
		const page = el("main");
		app.append(page);
		const tooltip = el("div", { class: "tooltip", role: "tooltip" });
		document.body.append(tooltip);

		function section(id, title, hint) {
			const s = el("section", { id }, el("h2", null, title, hint ? el("span", { class: "hint", text: hint }) : null));
			page.append(s);
			return s;
		}

		/* ---------- scale and advice (lib/report/scale.c, advice.c) ---------- */

		function renderScale() {
			const s = section("scale", "Scale", "how much of what was sampled went to communicating accesses");
			const sc = SCALE;
			if (data.empty_reason) {
				s.append(el("div", { class: "scale-banner empty", id: "scale-empty" },
					el("div", { class: "big", text: "No communication" }), el("div", { text: data.empty_reason })));
				return;
			}
			if (sc.all === null || sc.all === undefined) {
				s.append(el("div", { class: "scale-banner", id: "scale-banner" }, el("div", { text: "share unknown: " + sc.how })));
				return;
			}
			const what = sc.basis === "cpu_time" ? "of the sampled CPU time" : "of the sampled memory accesses";
			const neg = sc.all < sc.negligible_below;
			s.append(el("div", { class: "scale-banner" + (neg ? " negligible" : ""), id: "scale-banner" },
				el("div", { class: "big", id: "scale-all", text: sc.all.toFixed(1) + "% " + what }),
				el("div", { text: "true sharing " + sc.true.toFixed(1) + "% · false sharing " + sc.false.toFixed(1) + "%" }),
				el("div", { class: "note", text: sc.how }),
				sc.over_100 ? el("div", { class: "note", id: "scale-over-100", text: "Over 100%: " + sc.over_100 }) : null,
				el("div", { class: "verdict", id: "scale-verdict", text: neg
					? "Negligible (under " + sc.negligible_below + "%): removing all of it would save less than that; the views below show where it is, not a problem to fix."
					: "Matters: shares under " + sc.negligible_below + "% are marked negligible (·) in the tables below." })));
		}

		function renderAdvice() {
			const s = section("advice", "Advice", "what to change; the report never edits your code");
			const A = data.advice;
			if (!A.false_sharing.length && !A.true_sharing.length) {
				s.append(el("div", { class: "empty", id: "advice-empty", text: data.empty_reason || "no false or true sharing to advise on" }));
				return;
			}
			for (const f of A.false_sharing) {
				const lay = el("table", { class: "grid layout" }, el("thead", null, el("tr", null,
					...["offset", "size", "access", "false", "threads", "field"].map((t) => el("th", { text: t })))));
				const body = el("tbody");
				const tmax = f.layout.reduce((a, x) => Math.max(a, x.false), 1);
				for (const x of f.layout)
					body.append(el("tr", null, el("td", { class: "num", text: "+" + x.offset }),
						el("td", { class: "num", text: x.size + " B" }), el("td", { class: "num", text: x.access + " B" }),
						el("td", { class: "num", style: { background: x.false ? LUT[Math.round(40 + 180 * x.false / tmax)] : null }, text: fmtValue(x.false) }),
						el("td", { text: x.threads.join(", ") }), el("td", null, el("code", { text: x.name || "–" }))));
				lay.append(body);
				const b = f.bound;
				s.append(el("div", { class: "advice-card", "data-object": f.object },
					el("h3", null, el("span", { class: "kind " + f.kind, text: f.kind }), el("span", { class: "objname", text: f.name })),
					el("div", { class: "sub", text: (f.type ? "element " + f.type : "element type unknown") +
						(f.element_size ? " of " + f.element_size + " B (" + f.element_size_from + ")" : "") +
						" · false sharing " + fmtValue(f.false) + (f.share !== null ? " = " + f.share.toFixed(1) + "% " +
						(SCALE.basis === "cpu_time" ? "of the sampled CPU time" : "of the sampled memory accesses") : "") }),
					el("p", { class: "pattern", text: f.pattern }),
					lay,
					el("h4", { text: "Change" }),
					el("ul", { class: "fixes" }, ...f.fixes.map((t) => el("li", { text: t }))),
					b.saves_at_most !== null ? el("div", { class: "bound" },
						el("strong", { text: b.speedup_at_most !== null
							? "Saves at most " + b.saves_at_most.toFixed(1) + "% of the sampled CPU time (speedup ≤ " + b.speedup_at_most.toFixed(2) + "× if the threads are balanced)"
							: "Saves about " + b.saves_at_most.toFixed(1) + "% of the sampled memory accesses (no time bound)" }),
						el("span", { class: "note", text: " — a bound after Cheetah (CGO 2016), assuming:" }),
						el("ul", null, ...b.assumptions.map((t) => el("li", { text: t })))) : null));
			}
			if (A.true_sharing.length) {
				s.append(el("h3", { text: "True sharing: hand-offs" }));
				const ol = el("ol", { id: "advice-true" });
				for (const t of A.true_sharing)
					ol.append(el("li", null, el("code", { text: t.a + " ↔ " + t.b }), " ",
						el("strong", { text: t.kind }),
						el("span", { class: "sub", text: " · " + fmtValue(t.true) + (t.share !== null ? " (" + t.share.toFixed(1) + "%)" : "") }),
						el("div", { class: "sub", text: t.meaning })));
				s.append(ol);
			}
		}

		/* ---------- overview ---------- */

		function splitBar(parts) {
			const total = parts.reduce((a, p) => a + p.v, 0);
			return el("div", null,
				el("div", { class: "split" }, ...parts.map((p) => el("span", {
					title: p.name + ": " + fmtRaw(p.v),
					style: { width: (total ? 100 * p.v / total : 0) + "%", background: p.color } }))),
				el("div", { class: "legend-row" }, ...parts.map((p) => el("span", null,
					el("span", { class: "dot", style: { background: p.color } }),
					p.name + " " + fmtValue(p.v) + " (" + pct(p.v, total) + ")"))));
		}

		function kv(pairs) {
			const dl = el("dl", { class: "kv" });
			for (const [k, v] of pairs) dl.append(el("dt", { text: k }), el("dd", null, v));
			return dl;
		}

		function renderOverview() {
			const s = section("overview", "Overview");
			const t = data.totals;
			const periodUnit = UNIT === "ns" ? " ns of CPU time" : " events";
			const periods = data.periods.length ? data.periods.join(", ") + periodUnit : "–";
			const cards = el("div", { class: "cards" },
				el("div", { class: "card", id: "ov-program" }, el("h3", { text: "Program" }),
					el("div", { class: "big", text: data.program }),
					kv([["processes", String(data.processes.length)],
						["threads", String(data.threads.length)],
						["executable", exe]])),
				el("div", { class: "card", id: "ov-sampler" }, el("h3", { text: "Measurement" }),
					kv([["sampler", data.samplers.join(", ") || "–"],
						["period", periods],
						["unit", UNIT + " — " + data.unit_text],
						["profiles", data.profiles.read + " read of " + data.profiles.found +
							", " + data.profiles.skipped.length + " skipped"],
						["events", t.events + " (weight " + fmtValue(t.event_weight) + ")"]])),
				el("div", { class: "card", id: "ov-totals" }, el("h3", { text: "Communication" }),
					el("div", { class: "big", text: fmtValue(t.all), title: fmtRaw(t.all) }),
					el("div", { class: "note", text: "true vs false sharing" }),
					splitBar([{ name: "true", v: t.true, color: "var(--true)" },
						{ name: "false", v: t.false, color: "var(--false)" }]),
					el("div", { class: "note", style: { marginTop: "8px" }, text: "detected by address sample vs by watchpoint trap" }),
					splitBar([{ name: "sample", v: t.sample, color: "var(--sample)" },
						{ name: "trap", v: t.trap, color: "var(--trap)" }])));
			s.append(cards);
			if (data.profiles.skipped.length || data.warnings.length) {
				const ul = el("ul", { class: "warn" });
				for (const sk of data.profiles.skipped) ul.append(el("li", { text: "skipped " + sk.file + ": " + sk.reason }));
				for (const w of data.warnings) ul.append(el("li", { text: w }));
				s.append(el("details", { class: "more", open: true }, el("summary", { text: "Warnings and skipped profiles" }), ul));
			}
			if (data.ranks && data.ranks.length) {
				/* MPI: each rank's communication among its own threads and with other ranks' threads. */
				const tb = el("table", { class: "grid", id: "ranks-table", style: { maxWidth: "760px" } },
					el("thead", null, el("tr", null, ...["rank", "host", "threads", "within rank", "with other ranks"].map((h, k) =>
						el("th", { class: k === 1 ? "" : "num", text: h })))));
				for (const r of data.ranks) {
					const w = r.within_true + r.within_false, a = r.across_true + r.across_false;
					tb.append(el("tr", null, el("td", { class: "num", text: String(r.rank) }), el("td", { text: r.host }),
						el("td", { class: "num", text: String(r.threads) }),
						el("td", { class: "num", text: fmtValue(w), title: fmtRaw(w) }),
						el("td", { class: "num", text: fmtValue(a), title: fmtRaw(a) })));
				}
				const pairs = data.rank_pairs.length ? el("ul", null, ...data.rank_pairs.map((p) =>
					el("li", { text: "rank " + p.a + " ↔ rank " + p.b + ": " + fmtValue(p.true + p.false) }))) :
					el("div", { class: "note", text: "no communication between threads of different ranks was detected (detection sees one process at a time)" });
				s.append(el("details", { class: "more", open: true }, el("summary", { text: "MPI ranks (" + data.ranks.length + ")" }), tb, pairs));
			}
			if (data.counters.length) {
				const tb = el("table", { class: "grid", style: { maxWidth: "520px" } });
				for (const c of data.counters) tb.append(el("tr", null, el("td", { text: c.name }), el("td", { class: "num", text: String(c.value) })));
				s.append(el("details", { class: "more" }, el("summary", { text: "Runtime counters (" + data.counters.length + ")" }), tb));
			}
		}

		/* ---------- colour scale ---------- */

		/* white → orange → dark red; darker is more */
		const STOPS = [[255, 247, 236], [253, 212, 158], [252, 141, 89], [215, 48, 31], [103, 0, 13]];
		const LUT = [];
		for (let k = 0; k < 256; k++) {
			const x = k / 255 * (STOPS.length - 1), i = Math.min(Math.floor(x), STOPS.length - 2), f = x - i;
			const c = STOPS[i].map((v, d) => Math.round(v + (STOPS[i + 1][d] - v) * f));
			LUT.push("rgb(" + c.join(",") + ")");
		}
		const ZERO = "#f1f3f5", DIAG = "#d9dde2";

		/* ---------- heatmaps ---------- */

		const hm = { level: levels.has("group") && data.threads.length > 16 ? "group" : "thread", kind: "all", log: false, sel: null, mode: null, n: 0, cell: 0, max: 0 };
		let hmBox, hmLegend, hmMeta, drill, hmCanvas, hmOverlay, hmSvg;

		function matrixMax(M) {
			let m = 0;
			for (const row of M) for (const v of row) if (v > m) m = v;
			return m;
		}
		/* Each view is scaled to its own maximum, and only the maximum gets the
		   darkest colour: the hottest pair is always the darkest cell. */
		function colorOf(v, i, j) {
			if (i === j && hm.level !== "group") return DIAG;
			if (!v) return ZERO;
			if (v >= hm.max) return LUT[255];
			const t = hm.log ? Math.log1p(v) / Math.log1p(hm.max) : v / hm.max;
			return LUT[Math.max(1, Math.min(254, Math.round(t * 254)))];
		}
		function label(level, i) { return levels.get(level).labels[i]; }
		function cellText(i, j) {
			const L = levels.get(hm.level);
			const v = (k) => L.matrices[k].values[i][j];
			const sh = shareOf(v(hm.kind));
			return [label(hm.level, i) + " ↔ " + label(hm.level, j),
				hm.kind + ": " + fmtValue(v(hm.kind)) + " (" + fmtRaw(v(hm.kind)) + ")" +
					(sh === null ? "" : " = " + sh.toFixed(sh < 0.1 && v(hm.kind) ? 2 : 1) + "% " + SHARE_OF),
				"all " + fmtValue(v("all")) + " · true " + fmtValue(v("true")) + " · false " + fmtValue(v("false"))];
		}
		function showTip(ev, lines) {
			tooltip.replaceChildren(el("div", { class: "v", text: lines[0] }), ...lines.slice(1).map((l) => el("div", { text: l })));
			tooltip.style.display = "block";
			const x = Math.min(ev.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
			const y = Math.min(ev.clientY + 14, window.innerHeight - tooltip.offsetHeight - 8);
			tooltip.style.left = x + "px";
			tooltip.style.top = y + "px";
		}
		function hideTip() { tooltip.style.display = "none"; }

		function drawHeatmap() {
			const L = levels.get(hm.level), M = L.matrices[hm.kind].values, n = dim(L);
			hm.n = n;
			hm.max = matrixMax(M) || 1;
			hm.mode = n <= SVG_MAX ? "svg" : "canvas";
			hm.sel = null;
			hideTip();
			hmBox.replaceChildren();
			const size = Math.max(240, Math.min(620, n * 56));
			hm.cell = Math.max(2, Math.floor(size / n));
			const gridPx = hm.cell * n;
			const showLabels = hm.cell >= 16;
			const margin = showLabels ? Math.min(130, 10 + 7 * L.labels.reduce((a, s) => Math.max(a, s.length), 0)) : 26;
			hm.margin = margin;
			if (hm.mode === "svg") {
				const gap = hm.cell >= 8 ? 1 : 0;
				hmSvg = sv("svg", { width: margin + gridPx, height: margin + gridPx, role: "img",
					"aria-label": hm.level + " matrix (" + hm.kind + ")" });
				const g = sv("g", { transform: "translate(" + margin + "," + margin + ")" });
				for (let i = 0; i < n; i++) {
					for (let j = 0; j < n; j++) {
						const v = M[i][j];
						g.append(sv("rect", { class: "cell" + (i === j ? " diag" : ""), x: j * hm.cell, y: i * hm.cell,
							width: hm.cell - gap, height: hm.cell - gap, fill: colorOf(v, i, j),
							"data-i": i, "data-j": j, "data-v": v }));
					}
				}
				hmSvg.append(g);
				const every = showLabels ? 1 : Math.ceil(n / Math.max(1, Math.floor(gridPx / 24)));
				for (let i = 0; i < n; i += every) {
					const full = showLabels ? L.labels[i] : String(i);
					const text = full.length > 18 ? full.slice(0, 17) + "…" : full;
					const tl = sv("text", { x: margin - 6, y: margin + i * hm.cell + hm.cell / 2 + 4, "text-anchor": "end" });
					const tt = sv("text", { x: 0, y: 0, "text-anchor": "start",
						transform: "translate(" + (margin + i * hm.cell + hm.cell / 2 + 4) + "," + (margin - 6) + ") rotate(-90)" });
					for (const t of [tl, tt]) {
						t.textContent = text;
						if (text !== full) t.append(Object.assign(sv("title", {}), { textContent: full }));
					}
					hmSvg.append(tl, tt);
				}
				hmSvg.addEventListener("mousemove", (ev) => {
					const r = ev.target.closest && ev.target.closest("rect.cell");
					if (!r) { hideTip(); return; }
					showTip(ev, cellText(+r.dataset.i, +r.dataset.j));
				});
				hmSvg.addEventListener("mouseleave", hideTip);
				hmSvg.addEventListener("click", (ev) => {
					const r = ev.target.closest && ev.target.closest("rect.cell");
					if (r) selectCell(+r.dataset.i, +r.dataset.j);
				});
				hmBox.append(hmSvg);
			} else {
				const dpr = window.devicePixelRatio || 1;
				const w = margin + gridPx;
				hmCanvas = el("canvas", { width: Math.round(w * dpr), height: Math.round(w * dpr),
					style: { width: w + "px", height: w + "px", cursor: "crosshair" },
					role: "img", "aria-label": hm.level + " matrix (" + hm.kind + ")" });
				hmOverlay = el("canvas", { class: "overlay", width: Math.round(w * dpr), height: Math.round(w * dpr),
					style: { width: w + "px", height: w + "px" } });
				const ctx = hmCanvas.getContext("2d");
				ctx.scale(dpr, dpr);
				for (let i = 0; i < n; i++) {
					const row = M[i];
					for (let j = 0; j < n; j++) {
						ctx.fillStyle = colorOf(row[j], i, j);
						ctx.fillRect(margin + j * hm.cell, margin + i * hm.cell, hm.cell, hm.cell);
					}
				}
				ctx.fillStyle = "#66707c";
				ctx.font = "10px sans-serif";
				const every = Math.ceil(n / Math.max(1, Math.floor(gridPx / 28)));
				for (let i = 0; i < n; i += every) {
					ctx.textAlign = "right";
					ctx.fillText(String(i), margin - 4, margin + i * hm.cell + hm.cell / 2 + 3);
					ctx.save();
					ctx.translate(margin + i * hm.cell + hm.cell / 2 + 3, margin - 4);
					ctx.rotate(-Math.PI / 2);
					ctx.textAlign = "left";
					ctx.fillText(String(i), 0, 0);
					ctx.restore();
				}
				const at = (ev) => {
					const r = hmCanvas.getBoundingClientRect();
					const x = ev.clientX - r.left - margin, y = ev.clientY - r.top - margin;
					if (x < 0 || y < 0) return null;
					const i = Math.floor(y / hm.cell), j = Math.floor(x / hm.cell);
					return i < n && j < n ? [i, j] : null;
				};
				hmCanvas.addEventListener("mousemove", (ev) => {
					const c = at(ev);
					if (!c) { hideTip(); return; }
					showTip(ev, cellText(c[0], c[1]));
				});
				hmCanvas.addEventListener("mouseleave", hideTip);
				hmCanvas.addEventListener("click", (ev) => { const c = at(ev); if (c) selectCell(c[0], c[1]); });
				hmBox.append(hmCanvas, hmOverlay);
			}
			/* legend and matrix facts */
			const ramp = "linear-gradient(to right, " + LUT.filter((_, k) => k % 32 === 0 || k === 255).join(", ") + ")";
			hmLegend.replaceChildren(el("span", { text: "0" }), el("span", { class: "ramp", style: { background: ramp } }),
				el("span", { text: fmtValue(hm.max) + (hm.log ? " (log scale)" : "") }),
				el("span", { class: "dot", style: { background: DIAG, marginLeft: "14px" } }), "same index");
			const m = L.matrices[hm.kind];
			hmMeta.textContent = (L.note ? L.note + " · " : "") + L.n + "×" + L.n + " · total " + fmtValue(m.total) + " · on the diagonal (same " +
				hm.level + ") " + fmtValue(m.diagonal) + " · not placed at this level " + fmtValue(m.unplaced) +
				" · file " + m.file;
			renderDrill();
		}

		function selectCell(i, j) {
			hm.sel = [i, j];
			if (hm.mode === "svg") {
				for (const r of hmSvg.querySelectorAll("rect.sel")) r.classList.remove("sel");
				const r = hmSvg.querySelector('rect.cell[data-i="' + i + '"][data-j="' + j + '"]');
				if (r) { r.classList.add("sel"); r.parentNode.append(r); }
			} else {
				const dpr = window.devicePixelRatio || 1, ctx = hmOverlay.getContext("2d");
				ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
				ctx.clearRect(0, 0, hmOverlay.width, hmOverlay.height);
				ctx.strokeStyle = "#000";
				ctx.lineWidth = 2;
				ctx.strokeRect(hm.margin + j * hm.cell - 1, hm.margin + i * hm.cell - 1, hm.cell + 2, hm.cell + 2);
			}
			renderDrill();
		}

		/* Objects whose thread matrix has the selected pair (thread level), or a
		   pair of threads that ran on the selected indexes (other levels). */
		function objectsForPair(i, j) {
			if (!data.objects) return null;
			const out = [];
			let ti = null, tj = null;
			const L = levels.get(hm.level), oi = orig(L, i), oj = orig(L, j);
			if (hm.level !== "thread") {
				ti = new Set(); tj = new Set();
				data.threads.forEach((t, k) => {
					const s = threadIndexes(hm.level, k);
					if (s.has(i)) ti.add(k);
					if (s.has(j)) tj.add(k);
				});
			}
			for (const o of data.objects) {
				const v = { all: 0, true: 0, false: 0 };
				for (const c of o.cells) {
					const hit = ti === null
						? (c[0] === Math.min(oi, oj) && c[1] === Math.max(oi, oj))
						: ((ti.has(c[0]) && tj.has(c[1])) || (ti.has(c[1]) && tj.has(c[0])));
					if (hit) { v.all += c[2]; v.true += c[3]; v.false += c[4]; }
				}
				if (v.all) out.push({ o, v });
			}
			out.sort((a, b) => b.v[hm.kind] - a.v[hm.kind] || b.v.all - a.v.all);
			return out;
		}

		function fieldText(f) {
			return (f.name || "bytes") + " +" + f.offset + " (" + (f.access || f.size) + " B)";
		}

		function renderDrill() {
			drill.replaceChildren();
			if (!hm.sel) {
				drill.append(el("h3", { text: "Click a cell" }),
					el("div", { class: "sub", text: "to see which data objects and which code the pair communicates through. Hover for values." }));
				/* the hottest pairs of this view, also clickable: on a large map
				   a single hot cell is only a few pixels wide */
				const L = levels.get(hm.level), M = L.matrices[hm.kind].values, top = [];
				for (let i = 0; i < dim(L); i++)
					for (let j = i + 1; j < dim(L); j++)
						if (M[i][j]) {
							top.push([M[i][j], i, j]);
							if (top.length > 64) { top.sort((a, b) => b[0] - a[0]); top.length = 8; }
						}
				top.sort((a, b) => b[0] - a[0] || a[1] - b[1] || a[2] - b[2]);
				if (top.length) {
					const ol = el("ol", { id: "drill-top" });
					for (const [v, i, j] of top.slice(0, 8))
						ol.append(el("li", null, el("a", { href: "#matrices", text: label(hm.level, i) + " ↔ " + label(hm.level, j),
							onclick: (ev) => { ev.preventDefault(); selectCell(i, j); } }),
							el("span", { class: "sub", text: "  " + fmtValue(v) })));
					drill.append(el("h4", { text: "Hottest pairs (" + hm.kind + ")" }), ol);
				}
				return;
			}
			const [i, j] = hm.sel, L = levels.get(hm.level);
			const v = (k) => L.matrices[k].values[i][j];
			drill.append(el("h3", { id: "drill-title", text: label(hm.level, i) + " ↔ " + label(hm.level, j) }),
				el("div", { class: "sub", text: "all " + fmtValue(v("all")) + " · true " + fmtValue(v("true")) +
					" · false " + fmtValue(v("false")) + " (" + pct(v("false"), v("all")) + " false)" +
					(shareOf(v("all")) === null ? "" : " · " + shareOf(v("all")).toFixed(1) + "% " +
					(SCALE.basis === "cpu_time" ? "of the sampled CPU time" : "of the sampled accesses") +
					(v("all") && shareOf(v("all")) < SCALE.negligible_below ? " (negligible)" : "")) }));
			if (i === j && hm.level !== "group") {
				drill.append(el("p", { class: "sub", text: "Same index: communication inside one " + hm.level +
					" is not in the matrix (see the diagonal total below the heatmap)." }));
				return;
			}
			const objs = objectsForPair(i, j);
			drill.append(el("h4", { text: "Data objects" + (hm.level !== "thread" ? " (threads that ran on these " + hm.level + "s)" : "") }));
			if (objs === null) {
				drill.append(el("div", { class: "empty", id: "drill-objects", text: "no object data in this database" }));
			} else if (!objs.length) {
				drill.append(el("div", { class: "empty", id: "drill-objects", text: "no data object recorded for this pair" }));
			} else {
				const ol = el("ol", { id: "drill-objects" });
				for (const { o, v: ov } of objs.slice(0, 10)) {
					const fields = o.fields.slice().sort((a, b) => b[hm.kind] - a[hm.kind]).slice(0, 4);
					ol.append(el("li", { "data-object": o.i },
						el("span", { class: "kind " + o.kind, text: o.kind }),
						el("span", { class: "objname", text: o.name }),
						el("div", { class: "sub", text: "this pair: all " + fmtValue(ov.all) + " · true " + fmtValue(ov.true) +
							" · false " + fmtValue(ov.false) + (o.size ? " · size " + fmtBytes(o.size) : "") }),
						fields.length ? el("div", { class: "sub", text: "fields: " + fields.map(fieldText).join(", ") }) : null));
				}
				drill.append(ol);
				const pairs = locPairs(objs.flatMap((x) => x.o.code_pairs));
				drill.append(el("h4", { text: "Code pairs of these objects" }));
				if (!pairs.length) drill.append(el("div", { class: "sub", text: "none recorded" }));
				else {
					const pl = el("ol", { id: "drill-pairs" });
					for (const p of pairs.slice(0, 8))
						pl.append(el("li", null, el("code", { text: p.a + " ↔ " + p.b }),
							el("span", { class: "sub", text: "  " + fmtValue(p.all) + " (false " + fmtValue(p.false) + ")" })));
					drill.append(pl);
				}
				return;
			}
			/* without per-object data the code pairs are not split by thread pair */
			const pairs = locPairs(data.code_pairs.pairs).slice(0, 5);
			if (pairs.length) {
				drill.append(el("h4", { text: "Top code pairs (all threads: the database does not split them by pair)" }));
				const pl = el("ol", { id: "drill-pairs" });
				for (const p of pairs)
					pl.append(el("li", null, el("code", { text: p.a + " ↔ " + p.b }),
						el("span", { class: "sub", text: "  " + fmtValue(p.all) })));
				drill.append(pl);
			}
		}

		function renderMatrices() {
			const s = section("matrices", "Communication heatmaps", "symmetric: cell (i, j) is the volume between i and j, both directions");
			const levelSeg = el("div", { class: "seg", id: "level-seg" });
			for (const lv of ["group", "thread", "core", "socket", "numa"]) {
				if (lv === "group" && !levels.has(lv)) continue;
				levelSeg.append(el("button", { "data-level": lv, text: lv === "group" ? "thread groups" :
					lv === "thread" && levels.has("group") ? "thread (full matrix)" : lv, disabled: !levels.has(lv),
					title: levels.has(lv) ? null : "no topology was recorded",
					onclick: () => { hm.level = lv; sync(); drawHeatmap(); } }));
			}
			const kindSeg = el("div", { class: "seg", id: "kind-seg" });
			for (const k of KINDS)
				kindSeg.append(el("button", { "data-kind": k, text: k === "all" ? "all" : k + " sharing",
					onclick: () => { hm.kind = k; sync(); drawHeatmap(); } }));
			const logBox = el("input", { type: "checkbox", id: "hm-log", onchange: () => { hm.log = logBox.checked; drawHeatmap(); } });
			function sync() {
				for (const b of levelSeg.children) b.classList.toggle("on", b.dataset.level === hm.level);
				for (const b of kindSeg.children) b.classList.toggle("on", b.dataset.kind === hm.kind);
			}
			s.append(el("div", { class: "controls" }, levelSeg, kindSeg, el("label", { class: "chk" }, logBox, " log scale")));
			hmBox = el("div", { class: "hm-box", id: "heatmap" });
			hmLegend = el("div", { class: "hm-legend" });
			hmMeta = el("div", { class: "hm-meta" });
			drill = el("div", { class: "drill", id: "drill" });
			s.append(el("div", { class: "hm-wrap" }, el("div", null, hmBox, hmLegend, hmMeta), drill));
			sync();
			drawHeatmap();
		}

		/* ---------- objects ---------- */

		const objState = { key: "false", dir: -1, shown: 100 };
		let objBody, objHead;

		function miniHeatmap(o) {
			const n = data.threads.length, px = 64;
			const dpr = window.devicePixelRatio || 1;
			const c = el("canvas", { class: "mini", width: px * dpr, height: px * dpr,
				style: { width: px + "px", height: px + "px" }, title: "thread matrix of this object" });
			const ctx = c.getContext("2d");
			ctx.scale(dpr, dpr);
			ctx.fillStyle = ZERO;
			ctx.fillRect(0, 0, px, px);
			const cs = px / n, m = o.cells.reduce((a, x) => Math.max(a, x[2]), 1);
			for (const x of o.cells) {
				ctx.fillStyle = LUT[Math.max(40, Math.round(x[2] / m * 255))];
				const w = Math.max(cs, 2);
				ctx.fillRect(x[1] * cs, x[0] * cs, w, w);
				ctx.fillRect(x[0] * cs, x[1] * cs, w, w);
			}
			return c;
		}

		function objRow(o, rank) {
			const fields = o.fields.slice().sort((a, b) => b.false - a.false || b.all - a.all);
			const fl = el("ul", { class: "fieldlist" });
			for (const f of fields.slice(0, 5))
				fl.append(el("li", { title: "threads " + f.threads.join(", ") },
					el("code", { text: f.name || "bytes" }), " +" + f.offset + " (" + (f.access || f.size) + " B) · false " +
					fmtValue(f.false) + (f.true ? " · true " + fmtValue(f.true) : "")));
			if (fields.length > 5) fl.append(el("li", { class: "note", text: "+" + (fields.length - 5) + " more" }));
			const pl = el("ul", { class: "pairlist" });
			const pairs = locPairs(o.code_pairs);
			for (const p of pairs.slice(0, 3))
				pl.append(el("li", { title: p.an + " ↔ " + p.bn }, el("code", { text: p.a + " ↔ " + p.b }), " " + fmtValue(p.all)));
			if (pairs.length > 3) pl.append(el("li", { class: "note", text: "+" + (pairs.length - 3) + " more" }));
			const ctx = o.context !== null ? nodes.get(o.context) : null;
			return el("tr", { "data-object": o.i, "data-name": o.name },
				el("td", { class: "num", text: String(rank) }),
				el("td", null, el("span", { class: "kind " + o.kind, text: o.kind }), el("span", { class: "objname", text: o.name }),
					o.module ? el("div", { class: "note", text: basename(o.module) }) : null,
					ctx ? el("div", { class: "note", text: "allocated at " + where(ctx) + " in " + procName(ctx) }) : null),
				el("td", { class: "num", text: o.size ? fmtBytes(o.size) : "–" }),
				el("td", { class: "num", "data-k": "false", text: fmtValue(o.false), title: fmtRaw(o.false) }),
				shareCell(o.false),
				el("td", { class: "num", "data-k": "true", text: fmtValue(o.true), title: fmtRaw(o.true) }),
				el("td", { class: "num", "data-k": "all", text: fmtValue(o.all), title: fmtRaw(o.all) }),
				el("td", null, miniHeatmap(o)),
				el("td", null, fields.length ? fl : el("span", { class: "note", text: "–" })),
				el("td", null, pairs.length ? pl : el("span", { class: "note", text: "–" })));
		}

		function sortedObjects() {
			const k = objState.key, d = objState.dir;
			return data.objects.slice().sort((a, b) => {
				const x = a[k], y = b[k];
				if (x < y) return -d;
				if (x > y) return d;
				return b.all - a.all || a.i - b.i;
			});
		}

		function renderObjectRows() {
			const list = sortedObjects();
			objBody.replaceChildren(...list.slice(0, objState.shown).map((o, r) => objRow(o, r + 1)));
			for (const th of objHead.querySelectorAll("th.sortable"))
				th.setAttribute("aria-sort", th.dataset.key === objState.key ? (objState.dir < 0 ? "descending" : "ascending") : "none");
			const more = document.getElementById("objects-more");
			if (more) {
				more.style.display = list.length > objState.shown ? "" : "none";
				more.textContent = "show " + Math.min(100, list.length - objState.shown) + " more (of " + list.length + ")";
			}
		}

		function renderObjects() {
			const s = section("objects", "Data objects", "ranked by false sharing; click a column to sort");
			if (!data.objects) {
				s.append(el("div", { class: "empty", id: "objects-empty", text: "no object data in this database" }));
				return;
			}
			if (!data.objects.length) {
				s.append(el("div", { class: "empty", id: "objects-empty", text: "no data object took part in communication" }));
				return;
			}
			const th = (text, key, num) => el("th", { class: (key ? "sortable" : "") + (num ? " num" : ""), "data-key": key || null, text,
				onclick: key ? () => {
					if (objState.key === key) objState.dir = -objState.dir;
					else { objState.key = key; objState.dir = key === "name" ? 1 : -1; }
					renderObjectRows();
				} : null });
			objHead = el("tr", null, th("#", null, true), th("object", "name"), th("size", "size", true),
				th("false", "false", true), th("false " + SHARE_OF, null, true), th("true", "true", true), th("all", "all", true),
				th("threads"), th("fields / offsets"), th("code pairs"));
			objBody = el("tbody");
			s.append(el("table", { class: "grid", id: "objects-table" }, el("thead", null, objHead), objBody));
			s.append(el("button", { class: "more", id: "objects-more", text: "show 100 more",
				onclick: () => { objState.shown += 100; renderObjectRows(); } }));
			renderObjectRows();
		}

		/* ---------- code pairs ---------- */

		function renderCodePairs() {
			const s = section("codepairs", "Code pairs", "file:line ↔ file:line, merged over calling contexts");
			const pairs = locPairs(data.code_pairs.pairs);
			if (!pairs.length) { s.append(el("div", { class: "empty", text: "no code pairs recorded" })); return; }
			const st = { key: "all", dir: -1, shown: 50 };
			const body = el("tbody");
			const head = el("tr");
			const more = el("button", { class: "more", text: "show all " + pairs.length,
				onclick: () => { st.shown = Infinity; draw(); } });
			for (const [t, k] of [["code pair", null], ["functions", null], ["all", "all"], [SHARE_OF, null], ["true", "true"], ["false", "false"], ["false %", "fp"]])
				head.append(el("th", { class: (k ? "sortable num" : ""), "data-key": k, text: t,
					onclick: k ? () => { st.dir = st.key === k ? -st.dir : -1; st.key = k; draw(); } : null }));
			function draw() {
				const val = (p) => st.key === "fp" ? (p.all ? p.false / p.all : 0) : p[st.key];
				const list = pairs.slice().sort((a, b) => (val(a) - val(b)) * st.dir || b.all - a.all);
				body.replaceChildren(...list.slice(0, st.shown).map((p) => el("tr", null,
					el("td", null, el("code", { text: p.a + " ↔ " + p.b })),
					el("td", { class: "note", text: p.an + (p.bn ? " ↔ " + p.bn : "") }),
					el("td", { class: "num", text: fmtValue(p.all), title: fmtRaw(p.all) }),
					shareCell(p.all),
					el("td", { class: "num", text: fmtValue(p.true) }),
					el("td", { class: "num", text: fmtValue(p.false) }),
					el("td", { class: "num", text: pct(p.false, p.all) }))));
				for (const h of head.querySelectorAll("th.sortable"))
					h.setAttribute("aria-sort", h.dataset.key === st.key ? (st.dir < 0 ? "descending" : "ascending") : "none");
				more.style.display = pairs.length > st.shown ? "" : "none";
			}
			s.append(el("table", { class: "grid", id: "codepairs-table" }, el("thead", null, head), body), more);
			draw();
		}

		/* ---------- calling-context tree ---------- */

		const kids = new Map();
		for (const n of data.cct.nodes) {
			let a = kids.get(n.parent);
			if (!a) kids.set(n.parent, (a = []));
			a.push(n);
		}
		const sortedKids = new Set();
		function childrenOf(id) {
			const a = kids.get(id) || [];
			if (!sortedKids.has(id)) {
				a.sort((x, y) => y.inclusive[0] - x.inclusive[0] || x.id - y.id);
				sortedKids.add(id);
			}
			return a;
		}
		const cctTotal = data.cct.root.inclusive;
		const nodeEls = new Map();   /* id -> {row, box, shown} for rendered nodes */
		let cctRendered = 0;

		function metricCell(v, total, e) {
			const c = el("span", { class: "m" + (e ? " e" : "") + " bar", title: fmtRaw(v) },
				v ? fmtValue(v) : "", v ? el("span", { class: "p", text: pct(v, total) }) : null);
			if (v && total) c.append(el("i", { style: { width: Math.min(100, 100 * v / total) + "%" } }));
			return c;
		}

		function nodeLabel(n) {
			const t = el("span", { class: "t " + n.type, text: n.type === "PF" ? "f" : n.type === "A" ? "inl" : n.type === "C" ? "call" : "stmt" });
			if (n.type === "PF" || n.type === "A") {
				const p = procs.get(n.proc);
				const lm = n.type === "PF" ? lms.get(n.lm) : null;
				return [t, el("span", { text: p ? p.name : "?" }),
					el("span", { class: "where", text: n.type === "A" ? "inlined at " + where(n) :
						(n.file ? where(n) : "") + (lm ? "  " + basename(lm) : "") })];
			}
			return [t, el("span", { text: where(n) })];
		}

		function makeNode(n, depth) {
			const box = el("div", { class: "node", "data-id": n.id });
			const has = (kids.get(n.id) || []).length > 0;
			const tog = el("span", { class: "tog", text: has ? "▸" : "" });
			const row = el("div", { class: "row", "data-id": n.id },
				el("span", { class: "name", style: { paddingLeft: (8 + depth * 14) + "px" } }, tog, ...nodeLabel(n)),
				...[0, 1, 2].map((b) => metricCell(n.inclusive[b], cctTotal[b], false)),
				...[0, 1, 2].map((b) => metricCell(n.exclusive[b], cctTotal[b], true)));
			box.append(row);
			const rec = { n, row, box, tog, depth, kidsBox: null, open: false };
			nodeEls.set(n.id, rec);
			cctRendered++;
			if (has) row.addEventListener("click", () => toggle(rec));
			return box;
		}

		/* Render children [from, from+PAGE) of rec into its box, with a "more" row. */
		function renderKids(container, parentId, depth, from) {
			const all = childrenOf(parentId);
			const frag = document.createDocumentFragment();
			for (const c of all.slice(from, from + PAGE)) frag.append(makeNode(c, depth));
			if (from + PAGE < all.length) {
				const more = el("div", { class: "morerow", style: { paddingLeft: (24 + depth * 14) + "px" },
					text: "show " + Math.min(PAGE, all.length - from - PAGE) + " more (" + (all.length - from - PAGE) + " not shown)" });
				more.addEventListener("click", () => { more.remove(); renderKids(container, parentId, depth, from + PAGE); });
				frag.append(more);
			}
			container.append(frag);
		}

		function toggle(rec, open) {
			const want = open === undefined ? !rec.open : open;
			if (want === rec.open) return;
			rec.open = want;
			rec.tog.textContent = want ? "▾" : "▸";
			if (want && !rec.kidsBox) {
				rec.kidsBox = el("div", { class: "kids" });
				renderKids(rec.kidsBox, rec.n.id, rec.depth + 1, 0);
				rec.box.append(rec.kidsBox);
			} else if (rec.kidsBox) {
				rec.kidsBox.style.display = want ? "" : "none";
			}
		}

		/* Open the hottest path from the top while it holds most of its parent. */
		function expandHotPath(limit) {
			let list = childrenOf(0), depth = 0;
			while (list.length && depth < limit) {
				const hot = list[0], rec = nodeEls.get(hot.id);
				if (!rec || !(kids.get(hot.id) || []).length) break;
				toggle(rec, true);
				list = childrenOf(hot.id);
				depth++;
			}
		}

		function renderTree() {
			const s = section("cct", "Calling contexts", "communication attributed to the detecting access; I = inclusive, E = exclusive");
			if (!data.cct.nodes.length) { s.append(el("div", { class: "empty", text: "the calling-context tree is empty" })); return; }
			const hdr = el("div", { class: "hdr" }, el("span", { class: "name", text: "scope (" + data.cct.nodes.length + " nodes)" }),
				...["all (I)", "true (I)", "false (I)", "all (E)", "true (E)", "false (E)"].map((t, k) =>
					el("span", { class: "m" + (k >= 3 ? " e" : ""), text: t })));
			const body = el("div", { class: "cctbody" });
			const cct = el("div", { class: "cct", id: "cct-tree" }, hdr, body);
			s.append(el("div", { class: "controls" },
				el("button", { class: "more", text: "expand hot path", onclick: () => expandHotPath(64) }),
				el("button", { class: "more", text: "collapse all", onclick: () => {
					for (const r of nodeEls.values()) if (r.open) toggle(r, false);
				} }),
				el("span", { class: "note", text: "unit " + UNIT + "; root total all " + fmtValue(cctTotal[0]) })), cct);
			renderKids(body, 0, 0, 0);
			expandHotPath(12);
		}

		/* ---------- threads ---------- */

		function renderThreads() {
			const s = section("threads", "Threads", "communication per thread: its row of the thread matrices");
			const body = el("tbody");
			const head = el("tr", null, ...["#", "thread", "process", "tid", "creator", "start routine", "cpus", "sampler", "period",
				"all", "true", "false"].map((t, k) => el("th", { class: k >= 9 || k === 0 ? "num" : "", text: t })));
			const maxAll = threadComm.reduce((a, c) => Math.max(a, c.all), 1);
			let shown = PAGE;
			const more = el("button", { class: "more", text: "show all " + data.threads.length + " threads",
				onclick: () => { shown = Infinity; draw(); } });
			function draw() {
				body.replaceChildren(...data.threads.slice(0, shown).map((t, i) => {
					const c = threadComm[i];
					const allCell = el("td", { class: "num bar", text: fmtValue(c.all), title: fmtRaw(c.all) },
						el("i", { style: { width: 100 * c.all / maxAll + "%" } }));
					return el("tr", null, el("td", { class: "num", text: String(t.index) }), el("td", { text: t.label }),
						el("td", { text: t.process + " (pid " + t.pid + ")" }), el("td", { text: t.tid === null ? "–" : String(t.tid) }),
						el("td", { text: t.creator === null ? "–" : String(t.creator) }), el("td", { text: t.start_routine || "–" }),
						el("td", { text: t.cpus || "–" }), el("td", { text: t.sampler || "–" }),
						el("td", { text: t.period === null ? "–" : String(t.period) }),
						allCell, el("td", { class: "num", text: fmtValue(c.true) }), el("td", { class: "num", text: fmtValue(c.false) }));
				}));
				more.style.display = data.threads.length > shown ? "" : "none";
			}
			s.append(el("table", { class: "grid", id: "threads-table" }, el("thead", null, head), body), more);
			draw();
		}

		/* ---------- code regions (regions.xml, doc/regions.md) ---------- */

		/* The region tree on the left (children built when first opened,
		   largest first), the selected region's thread matrix on the right:
		   inclusive (either side's context passes through the region) or
		   exclusive (the detecting side's innermost region), with its top
		   pairs. */
		const rg = { sel: 0, excl: false, cells: [], open: new Set([0]) };
		let rgTree, rgPane;

		function regionKids() {
			const kids = new Map();
			for (const r of data.regions || []) {
				if (r.parent === null) continue;
				if (!kids.has(r.parent)) kids.set(r.parent, []);
				kids.get(r.parent).push(r.i);
			}
			return kids;
		}
		let rgKids = null;
		function regionAll(r) { return r.true + r.false + r.self; }
		function regionExcl(r) { return r.xtrue + r.xfalse + r.xself; }

		function regionRow(i, depth) {
			const r = data.regions[i], tot = regionAll(data.regions[0]);
			const kids = rgKids.get(i) || [];
			const li = el("li", { "data-region": i, class: "rg-" + r.kind });
			const tw = el("span", { class: "tw", text: kids.length ? (rg.open.has(i) ? "▾" : "▸") : "·" });
			const bar = el("span", { class: "rgbar", title: "inclusive " + pct(regionAll(r), tot) + ", exclusive " + pct(regionExcl(r), tot) },
				el("span", { class: "in", style: { width: (tot ? 100 * regionAll(r) / tot : 0) + "%" } }),
				el("span", { class: "ex", style: { width: (tot ? 100 * regionExcl(r) / tot : 0) + "%" } }));
			const row = el("div", { class: "rgrow" + (rg.sel === i ? " on" : ""), style: { paddingLeft: (depth * 14) + "px" },
				title: r.kind + (r.file ? " · " + r.file + ":" + r.line : "") + (r.irreducible ? " · irreducible" : ""),
				onclick: (ev) => {
					if (ev.target === tw && kids.length) {
						if (rg.open.has(i)) rg.open.delete(i); else rg.open.add(i);
						drawRegionTree();
						return;
					}
					selectRegion(i);
				} },
				tw, el("span", { class: "kind rk-" + r.kind, text: r.kind }), el("span", { class: "rgname", text: r.name }),
				bar, el("span", { class: "num sub", text: pct(regionAll(r), tot) + " / " + pct(regionExcl(r), tot) }));
			li.append(row);
			if (kids.length && rg.open.has(i)) {
				const ul = el("ul");
				const sorted = kids.slice().sort((a, b) => regionAll(data.regions[b]) - regionAll(data.regions[a]) || a - b);
				for (const k of sorted) ul.append(regionRow(k, depth + 1));
				li.append(ul);
			}
			return li;
		}

		function drawRegionTree() {
			rgTree.replaceChildren(el("ul", { class: "rgtree" }, regionRow(0, 0)));
		}

		function regionCells(r) {
			const n = data.threads.length;
			const M = [];
			for (let i = 0; i < n; i++) M.push(new Array(n).fill(0));
			for (const c of r.cells) {
				const v = rg.excl ? c[4] + c[5] : c[2] + c[3];
				M[c[0]][c[1]] = v;
				M[c[1]][c[0]] = v;
			}
			return M;
		}

		function drawRegion() {
			const r = data.regions[rg.sel], tot = regionAll(data.regions[0]);
			const n = data.threads.length, px = Math.max(160, Math.min(420, n * 24));
			const M = regionCells(r);
			let max = 0;
			for (const row of M) for (const v of row) if (v > max) max = v;
			rg.cells = M;
			const dpr = window.devicePixelRatio || 1;
			const cv = el("canvas", { id: "region-heatmap", width: px * dpr, height: px * dpr,
				style: { width: px + "px", height: px + "px" } });
			const ctx = cv.getContext("2d");
			ctx.scale(dpr, dpr);
			const cs = px / n;
			for (let i = 0; i < n; i++)
				for (let j = 0; j < n; j++) {
					const v = M[i][j];
					ctx.fillStyle = i === j ? DIAG : !v ? ZERO : v >= max ? LUT[255] : LUT[Math.max(1, Math.round(v / max * 254))];
					ctx.fillRect(j * cs, i * cs, Math.ceil(cs), Math.ceil(cs));
				}
			cv.addEventListener("mousemove", (ev) => {
				const b = cv.getBoundingClientRect();
				const i = Math.floor((ev.clientY - b.top) / cs), j = Math.floor((ev.clientX - b.left) / cs);
				if (i < 0 || j < 0 || i >= n || j >= n) return;
				showTip(ev, [label("thread", i) + " ↔ " + label("thread", j), (rg.excl ? "exclusive " : "inclusive ") +
					fmtValue(M[i][j]) + " (" + fmtRaw(M[i][j]) + ")"]);
			});
			cv.addEventListener("mouseleave", () => { tooltip.style.display = "none"; });
			const seg = el("div", { class: "seg", id: "region-mode" },
				el("button", { "data-mode": "incl", class: rg.excl ? "" : "on", text: "inclusive", onclick: () => { rg.excl = false; drawRegion(); } }),
				el("button", { "data-mode": "excl", class: rg.excl ? "on" : "", text: "exclusive", onclick: () => { rg.excl = true; drawRegion(); } }));
			const pairs = r.cells.map((c) => [c[0], c[1], rg.excl ? c[4] + c[5] : c[2] + c[3], c[2], c[3]]).filter((p) => p[2] > 0)
				.sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
			const pl = el("ol", { id: "region-pairs" });
			for (const p of pairs.slice(0, 10))
				pl.append(el("li", null, label("thread", p[0]) + " ↔ " + label("thread", p[1]) + "  ",
					el("span", { class: "sub", text: fmtValue(p[2]) + (rg.excl ? "" : " (true " + fmtValue(p[3]) + ", false " + fmtValue(p[4]) + ")") })));
			const path = [];
			for (let x = r; x; x = x.parent === null ? null : data.regions[x.parent]) path.unshift(x.name);
			rgPane.replaceChildren(
				el("h3", { id: "region-title", text: r.name }),
				el("div", { class: "sub", text: r.kind + (r.irreducible ? " (irreducible)" : "") + (r.file ? " · " + r.file + ":" + r.line : "") +
					(r.module ? " · " + basename(r.module) : "") }),
				el("div", { class: "sub", text: path.join(" › ") }),
				kv([["inclusive", fmtValue(regionAll(r)) + " (" + pct(regionAll(r), tot) + " of the program; true " + fmtValue(r.true) +
						", false " + fmtValue(r.false) + ", same thread " + fmtValue(r.self) + ")"],
					["exclusive", fmtValue(regionExcl(r)) + " (" + pct(regionExcl(r), tot) + ")"]]),
				el("div", { class: "controls" }, seg),
				r.cells.length ? cv : el("div", { class: "empty", text: "no communication between threads in this region" }),
				pairs.length ? el("h4", { text: "Thread pairs" }) : null, pairs.length ? pl : null);
		}

		function selectRegion(i) {
			rg.sel = i;
			for (let x = data.regions[i]; x && x.parent !== null; x = data.regions[x.parent]) rg.open.add(x.parent);
			drawRegionTree();
			drawRegion();
		}

		function renderRegions() {
			const s = section("regions", "Code regions",
				"procedures, parallel regions and loops with ≥ 1% of the volume; bars: inclusive (either side's context passes through) / exclusive (the detecting side's innermost region)");
			if (!data.regions) {
				s.append(el("div", { class: "empty", id: "regions-empty", text: "no code regions in this database" }));
				return;
			}
			rgKids = regionKids();
			rgTree = el("div", { class: "rg-tree", id: "region-tree" });
			rgPane = el("div", { class: "rg-pane", id: "region-pane" });
			s.append(el("div", { class: "rg-wrap" }, rgTree, rgPane));
			/* open the way to the region with the largest exclusive volume */
			let best = 0;
			for (const r of data.regions) if (regionExcl(r) > regionExcl(data.regions[best])) best = r.i;
			for (let x = data.regions[best]; x && x.parent !== null; x = data.regions[x.parent]) rg.open.add(x.parent);
			selectRegion(0);
		}

		/* ---------- thread placement (doc/placement.md) ---------- */

		function renderPlacement() {
			const list = data.placement || [];
			const s = section("placement", "Thread placement",
				"Scotch's mapping of the thread matrix onto the host's packages and cores, against this run's placement");
			if (!list.length) {
				s.append(el("p", { text: "no process with two threads or more: nothing to place" }));
				return;
			}
			for (const p of list) {
				const box = el("div", { class: "placement", "data-process": String(p.process) });
				box.append(el("h3", { text: "process " + p.process + (p.host ? " (host " + p.host + ")" : "") }));
				if (p.status !== "ok") {
					box.append(el("p", { text: "no placement proposed: " + p.why }));
					s.append(box);
					continue;
				}
				const share = (v) => v === null ? "?" : pct(v, p.total);
				const change = (run, prop) => run === null || !run ? "–" : ((100 * (prop - run) / run).toFixed(1) + "%");
				box.append(el("p", { text: p.threads + " threads on " + p.cores + " cores" +
					(p.flat ? " (packages of unequal size: mapped on the cores alone)" :
						" (" + p.packages + " packages x " + p.cores_per_package + " cores)") +
					(p.kept ? "; the run's placement is already as good: keep it" : "") }));
				box.append(el("table", { class: "grid placement-volumes" },
					el("thead", null, el("tr", null, ...["share of the volume", "this run", "proposed", "change"].map((t, k) =>
						el("th", { class: k ? "num" : "", text: t })))),
					el("tbody", null,
						el("tr", null, el("td", { text: "across packages" }), el("td", { class: "num", text: share(p.run_cross_package) }),
							el("td", { class: "num", text: share(p.cross_package) }),
							el("td", { class: "num", text: change(p.run_cross_package, p.cross_package) })),
						el("tr", null, el("td", { text: "across cores" }), el("td", { class: "num", text: share(p.run_cross_core) }),
							el("td", { class: "num", text: share(p.cross_core) }),
							el("td", { class: "num", text: change(p.run_cross_core, p.cross_core) })))));
				if (p.omp_places !== null)
					box.append(el("p", { text: "OpenMP (OpenMP thread i = thread i of the process, in creation order):" }),
						el("pre", { class: "cmd", text: "OMP_PLACES='" + p.omp_places + "' OMP_PROC_BIND=" + p.omp_proc_bind }));
				else
					box.append(el("p", { text: "more threads than cores: threads that share a core are assumed not to run at the same time; no OMP_PLACES" }));
				box.append(el("p", { text: "per thread ($TID_i: thread i's Linux thread id in the new run, ps -L), either command:" }),
					el("pre", { class: "cmd", text: p.map.map((m) => "T" + m.thread + " -> core " + m.core + " (cpus " + m.cpus + "):  " +
						m.taskset + "   " + m.hwloc_bind).join("\n") }));
				s.append(box);
			}
		}

		/* ---------- phases over time and NUMA locality (issue #18) ---------- */

		const phaseState = { pinned: null, shown: null, line: "total" };

		function threadLabel(i) { return data.threads[i] ? data.threads[i].label : String(i); }

		/* The thread matrix of one phase: SVG cells for the threads that take
		   part in it (at most SVG_MAX, the busiest). */
		function phaseHeatmap(p) {
			const vol = new Map();
			for (const c of p.cells) {
				vol.set(c[0], (vol.get(c[0]) || 0) + c[2]);
				vol.set(c[1], (vol.get(c[1]) || 0) + c[2]);
			}
			const idx = [...vol.keys()].sort((a, b) => vol.get(b) - vol.get(a) || a - b).slice(0, SVG_MAX).sort((a, b) => a - b);
			const pos = new Map(idx.map((t, k) => [t, k]));
			const n = idx.length, cell = n ? Math.max(8, Math.min(32, Math.floor(320 / n))) : 8, margin = 120;
			const svg = sv("svg", { width: margin + n * cell + 80, height: margin + n * cell + 4, id: "phase-heatmap",
				role: "img", "aria-label": "thread matrix of phase " + (p.i + 1) });
			let max = 0;
			for (const c of p.cells) max = Math.max(max, c[2]);
			for (let k = 0; k < n; k++) {
				const lt = sv("text", { x: margin - 4, y: margin + k * cell + cell * 0.7, "text-anchor": "end", class: "hm-label" });
				lt.textContent = threadLabel(idx[k]);
				svg.append(lt);
				const tt = sv("text", { x: margin + k * cell + cell * 0.7, y: margin - 4, transform: "rotate(-60 " + (margin + k * cell + cell * 0.7) + " " + (margin - 4) + ")", class: "hm-label" });
				tt.textContent = threadLabel(idx[k]);
				svg.append(tt);
			}
			for (let a = 0; a < n; a++)
				for (let b = 0; b < n; b++)
					svg.append(sv("rect", { x: margin + b * cell, y: margin + a * cell, width: cell - 1, height: cell - 1, fill: "#f3f4f6" }));
			for (const c of p.cells) {
				if (!pos.has(c[0]) || !pos.has(c[1])) continue;
				const a = pos.get(c[0]), b = pos.get(c[1]);
				const alpha = max ? 0.12 + 0.88 * c[2] / max : 0;
				for (const [r, q] of [[a, b], [b, a]]) {
					const rect = sv("rect", { x: margin + q * cell, y: margin + r * cell, width: cell - 1, height: cell - 1,
						fill: "rgba(29, 78, 216, " + alpha.toFixed(3) + ")", "data-i": c[0], "data-j": c[1], "data-v": c[2] });
					const t = sv("title", {});
					t.textContent = threadLabel(c[0]) + " ↔ " + threadLabel(c[1]) + ": " + fmtValue(c[2]) + " (true " + fmtValue(c[3]) + ", false " + fmtValue(c[4]) + ")";
					rect.append(t);
					svg.append(rect);
				}
			}
			return svg;
		}

		function showPhase(k) {
			const P = data.phases;
			if (!P || k === null || k === phaseState.shown) return;
			phaseState.shown = k;
			const p = P.list[k];
			const box = document.getElementById("phase-detail");
			const total = P.list.reduce((a, q) => a + q.all, 0);
			const pair = p.top_pair ? threadLabel(p.top_pair[0]) + " ↔ " + threadLabel(p.top_pair[1]) + " (" + fmtValue(p.top_pair[2]) + ")" : "–";
			box.replaceChildren(
				el("h3", { id: "phase-title", text: "Phase " + (k + 1) + " of " + P.list.length + ": " + (p.start_ns / 1e9).toFixed(3) + "–" + (p.end_ns / 1e9).toFixed(3) + " s" }),
				kv([["volume", fmtValue(p.all) + " (" + pct(p.all, total) + " of the run)"],
					["true / false", fmtValue(p.true) + " / " + fmtValue(p.false)],
					["top pair", pair],
					["top object", p.top_object === null ? "–" : p.top_object_name + " (" + fmtValue(p.top_object_all) + ")"]]),
				p.cells.length ? phaseHeatmap(p) : el("div", { class: "empty", text: "no communication between threads in this phase" }));
			for (const r of document.querySelectorAll("#phase-timeline .phase-band"))
				r.setAttribute("class", "phase-band" + (Number(r.dataset.phase) === k ? " current" : ""));
		}

		function renderPhases() {
			const s = section("phases", "Phases over time", "volume per time window; alike windows merged into phases; hover a window for its phase's heatmap, click to pin");
			const P = data.phases;
			if (!P) { s.append(el("div", { class: "empty", id: "phases-empty", text: "no phase data in this database" })); return; }
			const W = P.windows, nW = W.length, width = 760, height = 180, left = 76, bottom = 24, top = 18;
			const lineOpts = [["total", "total volume"]].concat(P.lines.map((l, k) => [String(k),
				l.kind === "pair" ? threadLabel(l.i) + " ↔ " + threadLabel(l.j) : "object: " + (data.objects && data.objects[l.i] ? data.objects[l.i].name : l.i)]));
			const select = el("select", { id: "phase-line", "aria-label": "timeline of" },
				...lineOpts.map(([v, t]) => el("option", { value: v, text: t })));
			const svg = sv("svg", { width: left + width + 10, height: height + bottom + top, id: "phase-timeline", role: "img", "aria-label": "communication volume over time" });
			const bw = width / Math.max(1, nW);
			const valueOf = (w) => phaseState.line === "total" ? w.all : w.lines[Number(phaseState.line)];
			const plot = sv("g", {});
			function drawBars() {
				plot.replaceChildren();
				const max = Math.max(1, ...W.map(valueOf));
				W.forEach((w, k) => {
					const h = height * valueOf(w) / max;
					const r = sv("rect", { x: left + k * bw + 1, y: top + height - h, width: Math.max(1, bw - 2), height: h, class: "phase-bar", "data-window": k, "data-phase": w.phase });
					const t = sv("title", {});
					t.textContent = (w.start_ns / 1e9).toFixed(3) + "–" + (w.end_ns / 1e9).toFixed(3) + " s: " + fmtValue(valueOf(w)) + " (phase " + (w.phase + 1) + ")";
					r.append(t);
					plot.append(r);
				});
				const ax = sv("text", { x: left - 6, y: top + 8, "text-anchor": "end", class: "hm-label" });
				ax.textContent = fmtValue(max);
				plot.append(ax);
			}
			P.list.forEach((p, k) => {
				const x = left + p.first * bw, w = (p.last - p.first + 1) * bw;
				const band = sv("rect", { x, y: top, width: w, height, class: "phase-band", "data-phase": k,
					fill: k % 2 ? "rgba(234, 179, 8, 0.10)" : "rgba(29, 78, 216, 0.06)" });
				svg.append(band);
				const lab = sv("text", { x: x + 4, y: top - 5, class: "phase-label" });
				lab.textContent = "P" + (k + 1);
				svg.append(lab);
				if (k) svg.append(sv("line", { x1: x, x2: x, y1: top - 2, y2: top + height, class: "phase-edge" }));
			});
			svg.append(plot);
			for (const t of [0, nW]) {
				const tx = sv("text", { x: left + t * bw, y: top + height + 16, "text-anchor": t ? "end" : "start", class: "hm-label" });
				tx.textContent = (t ? P.span_ns / 1e9 : 0).toFixed(3) + " s";
				svg.append(tx);
			}
			drawBars();
			const windowAt = (ev) => {
				const r = svg.getBoundingClientRect();
				const k = Math.floor((ev.clientX - r.left - left) / bw);
				return k >= 0 && k < nW ? k : null;
			};
			svg.addEventListener("mousemove", (ev) => {
				const k = windowAt(ev);
				if (k !== null && phaseState.pinned === null) showPhase(W[k].phase);
			});
			svg.addEventListener("click", (ev) => {
				const k = windowAt(ev);
				if (k === null) return;
				phaseState.pinned = phaseState.pinned === W[k].phase ? null : W[k].phase;
				phaseState.shown = null;
				showPhase(W[k].phase);
			});
			select.addEventListener("change", () => { phaseState.line = select.value; drawBars(); });
			s.append(el("div", { class: "controls" }, el("label", null, "timeline of ", select),
				el("span", { class: "hint", text: P.list.length + " phase" + (P.list.length === 1 ? "" : "s") + " in " + nW + " windows of " + (P.window_ns / 1e6).toPrecision(3) + " ms; windows alike at ≥ " + P.similarity + " (" + P.rule + ") join a phase" })));
			s.append(svg, el("div", { id: "phase-detail" }));
			showPhase(0);
		}

		function renderLocality() {
			const s = section("locality", "NUMA locality", "per data object: where its sampled pages live, where the accessing threads ran, remote share of its accesses");
			const L = data.locality;
			if (!L) { s.append(el("div", { class: "empty", id: "locality-empty", text: "no locality data in this database" })); return; }
			if (L.single) { s.append(el("div", { class: "empty", id: "locality-single", text: "single NUMA domain: every access is local" })); return; }
			if (!L.pages) { s.append(el("div", { class: "empty", id: "locality-nopages", text: L.domains + " NUMA domains, but no page placement was recorded" })); return; }
			const loc = L.local + L.remote;
			s.append(el("p", { id: "locality-total", text: pct(L.remote, loc) + " of the located accesses are remote (" + L.domains + " NUMA domains); objects with ≥ " + (100 * L.flag).toFixed(0) + "% remote accesses are flagged" }));
			const nodes = (arr) => arr.map((v, d) => v ? "node " + d + ": " + pct(v, arr.reduce((a, b) => a + b, 0)) : null).filter((x) => x).join(", ") || "–";
			const body = el("tbody");
			for (const o of L.objects) {
				const obj = data.objects ? data.objects[o.i] : null;
				let first = o.first_thread === null ? "unknown" : threadLabel(o.first_thread);
				if (obj && obj.kind === "heap" && o.first_thread !== null) first += " (allocating thread; context: the object's allocation site)";
				body.append(el("tr", { class: o.flagged ? "flagged" : null, "data-name": o.name, "data-share": o.remote_share },
					el("td", null, o.flagged ? el("span", { class: "flag", title: "high remote share", text: "⚠ " }) : null, o.name),
					el("td", { text: nodes(o.page_nodes) }),
					el("td", { text: nodes(o.thread_nodes) }),
					el("td", { class: "num", text: fmtValue(o.local) }),
					el("td", { class: "num", text: fmtValue(o.remote) }),
					el("td", { class: "num" }, el("span", { class: "share-bar" }, el("span", { style: { width: (100 * o.remote_share).toFixed(1) + "%" } })), " " + (100 * o.remote_share).toFixed(1) + "%"),
					el("td", { text: first })));
			}
			s.append(el("table", { class: "grid", id: "locality-table" }, el("thead", null, el("tr", null,
				el("th", { text: "object" }), el("th", { text: "pages on" }), el("th", { text: "accessed from" }),
				el("th", { class: "num", text: "local" }), el("th", { class: "num", text: "remote" }),
				el("th", { class: "num", text: "remote share" }), el("th", { text: "first touch" }))), body));
		}

		/* ---------- assemble, and the test hook ---------- */

		renderScale();
		renderOverview();
		renderAdvice();
		renderMatrices();
		renderObjects();
		renderPhases();
		renderLocality();
		renderCodePairs();
		renderRegions();
		renderTree();
		renderThreads();
		renderPlacement();

		window.hcReport = {
			data,
			view: () => ({ level: hm.level, kind: hm.kind, n: hm.n, mode: hm.mode, log: hm.log, cell: hm.cell, margin: hm.margin }),
			setView(level, kind) {
				if (!levels.has(level) || !KINDS.includes(kind)) throw new Error("no such view " + level + "/" + kind);
				const lb = document.querySelector('#level-seg button[data-level="' + level + '"]');
				const kb = document.querySelector('#kind-seg button[data-kind="' + kind + '"]');
				hm.level = level;
				lb.click();
				hm.kind = kind;
				kb.click();
			},
			value: (i, j) => levels.get(hm.level).matrices[hm.kind].values[i][j],
			color: (i, j) => colorOf(levels.get(hm.level).matrices[hm.kind].values[i][j], i, j),
			/* viewport coordinates of the centre of cell (i, j), after scrolling it into view */
			cellCenter(i, j) {
				const target = hm.mode === "svg" ? hmSvg : hmCanvas;
				target.scrollIntoView({ block: "center" });
				const r = target.getBoundingClientRect();
				return { x: r.left + hm.margin + (j + 0.5) * hm.cell, y: r.top + hm.margin + (i + 0.5) * hm.cell };
			},
			selected: () => hm.sel,
			levels: () => [...levels.keys()],
			objectOrder: () => objBody ? [...objBody.children].map((tr) => tr.dataset.name) : null,
			treeRows: () => cctRendered,
			/* code regions: select one (as a click on its row does), the one shown,
			   the values its heatmap was drawn from, inclusive or exclusive */
			regionSelect(i, excl) { rg.excl = !!excl; selectRegion(i); return rg.sel; },
			regionSelected: () => rg.sel,
			regionValue: (i, j) => rg.cells[i][j],
			regionRows: () => rgTree ? [...rgTree.querySelectorAll("li[data-region]")].map((li) => +li.dataset.region) : null,
			regionRowCenter(i) {
				const r = rgTree.querySelector('li[data-region="' + i + '"] > .rgrow .rgname');
				if (!r) return null;
				r.scrollIntoView({ block: "center" });
				const b = r.getBoundingClientRect();
				return { x: b.left + Math.min(b.width / 2, 20), y: b.top + b.height / 2 };
			},
			phaseShown: () => phaseState.shown,
			showPhase(k) { phaseState.pinned = null; phaseState.shown = null; showPhase(k); },
			expand(id) {
				const r = nodeEls.get(id);
				if (!r) return false;
				toggle(r, true);
				return true;
			},
			ready: true,
		};
	}
})();
