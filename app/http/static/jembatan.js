"use strict";
// What the pages Jembatan serves for people (app/http/static/dashboard.html, the dashboard;
// app/http/static/report.html, the daily report) share: talking to the API with the key the user
// gives, the key form, the site's labels and the plant's time zone, dates, numbers, and
// building DOM as text only. Served as <prefix>/jembatan.js (app/http/pages.py), open like the
// pages, and loaded by each with a plain <script src> before its own inline script, which
// takes what it needs from `Jembatan`. Every value from the API is inserted as text (text
// nodes, attributes), never as HTML.
window.Jembatan = (() => {
  const $ = (id) => document.getElementById(id);

  // This file lives at <prefix>/jembatan.js, beside the API's index <prefix>/: its own URL
  // gives the prefix (a proxy's too), whichever page loaded it and from however deep a path.
  const BASE = new URL(".", document.currentScript.src).pathname.replace(/\/$/, "");
  const KEY_STORE = "jembatan.apiKey"; // sessionStorage only: the key lives as long as the tab
  const MATERIALS = ["adonan", "afalan", "air", "aluminium", "kapur", "silo_1", "silo_2"];
  const NONE = "(none)"; // how a NULL value or group is shown

  // What the office calls the collections and date fields, and the plant's time zone: written
  // into each page by the server from the site's configuration (app/model/labels.py,
  // app/http/pages.py) as <script type="application/json" id="labels">; the API's name when it has
  // none.
  const LABELS = (() => {
    try { return JSON.parse($("labels").textContent); } catch (e) { return {}; }
  })();
  const collectionLabel = (c) => String(LABELS.collections?.[c] ?? c);
  const dateLabel = (on) => String(LABELS.dates?.[on] ?? on);
  // Whether the site maps collection `c`'s deduction (adjustweigh, docs/api.md §7): not when
  // its mapping gives it as NULL (app/core/absent.py); the net after deduction is then the
  // net itself, and the pages do not show it twice.
  const deducts = (c) => !(LABELS.absent?.[c] ?? []).includes("adjustweigh");
  // The plant's time zone ([site] timezone): "today" and the time figures were read are the
  // plant's, as the API's dates are, whatever zone the browser is in. Without one (or one
  // this browser does not know), the browser's own.
  const IN_ZONE = (() => {
    if (typeof LABELS.timezone !== "string") return {};
    try { new Intl.DateTimeFormat("en-GB", { timeZone: LABELS.timezone }); }
    catch (e) { return {}; }
    return { timeZone: LABELS.timezone };
  })();

  // ---- talking to the API -----------------------------------------------------------------

  const apiKey = () => sessionStorage.getItem(KEY_STORE);
  function absolute(path) { return new URL(path, location.href).href; }

  class NeedKey extends Error {}
  class ApiError extends Error {
    constructor(url, status, body) {
      // The error shape of docs/api.md §9 when the body has it; a proxy's page otherwise.
      const said = body && typeof body === "object" && "message" in body
        ? `${body.status ?? ""} (${body.code ?? status}): ${String(body.message)}`
        : `HTTP ${status}`;
      super(`${said}\n${absolute(url)}`);
    }
  }

  // GET `path` as JSON with the tab's key; NeedKey on a 401, every other failure an Error
  // that ends with the absolute URL (to be had again with curl). An abort (`signal`, a newer
  // load) passes through as the AbortError it is.
  async function getJson(path, signal) {
    return (await getAnswer(path, signal)).body;
  }
  // A summary's groups and what its figures leave out (its X-Left-Out header, docs/api.md
  // §7: [{reason, records, left_out_of, list}]; [] when a proxy dropped the header).
  async function getSummary(path, signal) {
    const { body, response } = await getAnswer(path, signal);
    let leftOut = [];
    try { leftOut = JSON.parse(response.headers.get("X-Left-Out") || "[]"); } catch (e) { /* none */ }
    return { rows: body, leftOut };
  }
  async function getAnswer(path, signal) {
    const headers = { Accept: "application/json" };
    const key = apiKey();
    if (key) headers["X-API-Key"] = key;
    let response;
    try {
      response = await fetch(path, { headers, signal });
    } catch (e) {
      if (e.name === "AbortError") throw e;
      throw new Error(`The service could not be reached (${e.message}).\n${absolute(path)}`);
    }
    if (response.status === 401) throw new NeedKey();
    let body = null;
    try { body = await response.json(); } catch (e) {
      if (e.name === "AbortError") throw e; // otherwise not JSON: said below
    }
    if (!response.ok) throw new ApiError(path, response.status, body);
    if (body === null) throw new Error(`Not JSON: ${absolute(path)}`);
    return { body, response };
  }

  // The summary URL (docs/api.md §7) of collection `c` over whole days, `from` 00:00 to `to`
  // 23:59:59 by date field `on`; without `by`, the API's default (by=day). Commas in `by`
  // are kept as they are so that the URL shown reads as one would type it for curl.
  function summaryUrl({ c, on, from, to }, by) {
    const groups = by && by.length ? `by=${by.map(encodeURIComponent).join(",")}&` : "";
    return `${BASE}/${encodeURIComponent(c)}/summary/${from}/00:00/${to}/23:59:59` +
      `?${groups}on=${encodeURIComponent(on)}`;
  }

  // The index names each collection's record by its schema in /openapi.json: Weighing,
  // NumberedWeighing (with numberrow), Production, NumberedProduction, ProductionWithId...
  function shapeOf(record) {
    const name = String(record).replace(/^Numbered/, "");
    if (name === "Weighing") return "weighing";
    if (name === "Vehicle") return "vehicle";
    if (name.startsWith("Production")) return "production";
    return null;
  }

  // ---- the page's state, its error and the API key ------------------------------------------

  // <html data-state>: loading, ready, key (asking for an API key), error, or a page's own;
  // the status line says it in words.
  function setState(state, text) {
    document.documentElement.dataset.state = state;
    $("status").textContent = text;
  }
  function showError(error) {
    $("error").textContent = String(error.message || error);
    $("error").hidden = false;
  }
  function askForKey() {
    const refused = apiKey() !== null;
    sessionStorage.removeItem(KEY_STORE);
    $("keynote").textContent = refused ? "That key was refused." : "";
    $("keyform").hidden = false;
    $("key").focus();
    setState("key", "An API key is needed to read the figures.");
  }
  // A load that failed: the key form for a 401, the error's text otherwise.
  function failed(error) {
    if (error instanceof NeedKey) { askForKey(); return; }
    showError(error);
    setState("error", "");
  }
  // The key form (#keyform, #key): a key given is kept for the tab and `load` runs again.
  function onKey(load) {
    $("keyform").addEventListener("submit", (event) => {
      event.preventDefault();
      const key = $("key").value.trim();
      if (!key) return;
      sessionStorage.setItem(KEY_STORE, key);
      $("key").value = "";
      $("keyform").hidden = true;
      load();
    });
  }

  // ---- dates (ISO strings, computed in UTC so that no time zone shifts a day) ---------------

  const toDate = (iso) => new Date(Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1,
                                           +iso.slice(8, 10)));
  const toIso = (date) => date.toISOString().slice(0, 10);
  function addDays(iso, n) {
    const d = toDate(iso);
    d.setUTCDate(d.getUTCDate() + n);
    return toIso(d);
  }
  // The parts of `date` in the plant's calendar and clock (IN_ZONE): year, month, day, and
  // hour, minute, second with `time`.
  function plantParts(date, time = false) {
    const parts = {};
    const fields = time ? { hour: "2-digit", minute: "2-digit", second: "2-digit",
                            hourCycle: "h23" } : {};
    for (const p of new Intl.DateTimeFormat("en-GB", { ...IN_ZONE, year: "numeric",
      month: "2-digit", day: "2-digit", ...fields }).formatToParts(date)) parts[p.type] = p.value;
    return parts;
  }

  // ---- numbers ------------------------------------------------------------------------------

  // Grouped by a narrow no-break space with "." as the decimal point: the same digits as the
  // API and its CSV, and no "1.234" that an Indonesian and an English reader take apart.
  // None (null) is "–"; || 0: no "-0".
  const grouped = (format) => (v) => (v === null || v === undefined ? "–"
    : format.format(v || 0).replace(/,/g, "\u202f"));
  const fmt = grouped(new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }));
  const fmtSigned = (v) => (v > 0 ? "+" : "") + fmt(v);
  // A deviation: always two decimals, signed.
  const PERCENT = grouped(new Intl.NumberFormat("en-US", { minimumFractionDigits: 2,
                                                           maximumFractionDigits: 2 }));
  const fmtPercent = (v) => (v > 0 ? "+" : "") + PERCENT(v);
  const label = (value) => (value === null || value === undefined ? NONE : String(value));

  // ---- building DOM (text only) -------------------------------------------------------------

  // h("td", {class: "num"}, "12"): an element whose attributes are set with setAttribute and
  // whose children (nodes, strings, arrays of them) are appended, strings as text nodes;
  // nothing is ever parsed as HTML. s(...) the same in SVG.
  function build(ns, tag, attrs, children) {
    const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) el.setAttribute(name, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }
  const h = (tag, attrs, ...children) => build(null, tag, attrs, children);
  const s = (tag, attrs, ...children) => build("http://www.w3.org/2000/svg", tag, attrs,
                                                children);
  const empty = (text) => h("p", { class: "empty" }, text);

  // A table of class `cls`. columns: [{title, field?, get?, format?, num?, cls?, col?}]: a
  // cell is get(row), or format(row[field], row) (fmt for a number, the text or (none)
  // otherwise), text or a node; num right-aligns it; cls is its class; col, the class of a
  // <col> (then the table has a <colgroup>). foot: a row or null. With `rowHeads`, each row's
  // first cell is a <th>.
  function table(cls, columns, rows, foot, rowHeads = false) {
    const cell = (tag, col, row) => h(tag, { class: col.num ? "num" : col.cls || null,
                                             "data-field": col.field },
      col.get ? col.get(row) : (col.format || (col.num ? fmt : label))(row[col.field], row));
    const line = (row) => h("tr", {}, ...columns.map(
      (col, i) => cell(i || !rowHeads ? "td" : "th", col, row)));
    return h("table", { class: cls },
      columns.some((c) => c.col) ? h("colgroup", {}, ...columns.map(
        (c) => h("col", { class: c.col || null }))) : null,
      h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", { class: c.num ? "num" : null },
                                                           c.title)))),
      h("tbody", {}, ...rows.map(line)),
      foot ? h("tfoot", {}, line(foot)) : null);
  }

  // What a summary's figures leave out and why (docs/api.md §7), as one line of text with a
  // link to the records of each reason: `items` as X-Left-Out or the report's `left_out`
  // give it (a link absolute, or under the API's root); `on`, the date field's label.
  const LEFT_OUT = {
    voided: () => "cancelled",
    no_main_date: (on) => `with no ${on} (in no day)`,
    not_weighed_out: () => "not weighed out (no second weight: in the weighings, not the net)",
    not_weighed_in: () => "with no first weight (in the weighings, not the net)",
  };
  // `who`: whose figures, when the line is one of several (the report's collections).
  function leftOutLine(items, on, who = "") {
    const some = (items || []).filter((i) => i.records > 0);
    const said = (i) => `${fmt(i.records)} ${(LEFT_OUT[i.reason] || (() => i.reason))(on)}`;
    const parts = some.flatMap((i, n) => [n ? "; " : "", !i.list ? said(i) : h("a", {
      href: /^https?:/.test(i.list) ? i.list : `${BASE}/${i.list}`,
    }, said(i))]);
    const head = who ? `${who}: left out of its figures: ` : "Left out of these figures: ";
    return h("p", { class: "left-out", "data-left-out": JSON.stringify(
      Object.fromEntries((items || []).map((i) => [i.reason, i.records]))) },
      some.length ? [head, ...parts, "."] : `${who ? `${who}: n` : "N"}othing left out: no ` +
                                            "cancelled ticket, none without its date or a weight.");
  }

  return Object.freeze({
    $, BASE, MATERIALS, NONE, LABELS, IN_ZONE, collectionLabel, dateLabel, deducts,
    apiKey, absolute, NeedKey, ApiError, getJson, getSummary, leftOutLine, summaryUrl, shapeOf,
    setState, showError, askForKey, failed, onKey,
    toDate, toIso, addDays, plantParts,
    grouped, fmt, fmtSigned, fmtPercent, label,
    build, h, s, empty, table,
  });
})();
