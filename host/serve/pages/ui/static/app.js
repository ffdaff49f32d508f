// zarrgw pages: the bearer token (kept in session storage, mirrored to a
// session cookie so that page loads and pictures carry it), the picture
// (drawn in place; its colorbar labelled with the range the picture
// endpoint says it used) and a 1-D array's table of values. Without this
// script the pages still show the picture, and the controls submit the
// page again.
"use strict";

const tokenKey = "zarrgw-token";

function setCookie(token) {
  document.cookie = "zarrgw_token=" + encodeURIComponent(token) + "; path=/; SameSite=Strict";
}

function hasCookie() {
  return document.cookie.split("; ").some((c) => c.startsWith("zarrgw_token="));
}

function setupToken() {
  const form = document.getElementById("token-form");
  if (!form) return;
  form.hidden = false;
  const saved = sessionStorage.getItem(tokenKey);
  if (saved && !hasCookie()) {
    setCookie(saved);
    location.reload();
    return;
  }
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("token-input");
    if (!input || !input.value) return;
    sessionStorage.setItem(tokenKey, input.value);
    setCookie(input.value);
    location.reload();
  });
  const forget = document.getElementById("token-forget");
  if (forget) {
    forget.addEventListener("click", () => {
      sessionStorage.removeItem(tokenKey);
      document.cookie = "zarrgw_token=; path=/; max-age=0; SameSite=Strict";
      location.reload();
    });
  }
}

// The picture's slice from the controls: image axes as start:stop
// windows, the others as one index each.
function sliceFrom(form) {
  const parts = [];
  for (let i = 0; ; i++) {
    const index = form.elements["index" + i];
    const start = form.elements["start" + i];
    if (index) {
      parts.push(String(index.value));
    } else if (start) {
      const stop = form.elements["stop" + i];
      parts.push(start.value + ":" + stop.value);
    } else {
      break;
    }
  }
  return parts.join(",");
}

// A limit for a label: six significant digits, exponents only for the
// very large and very small.
function formatNumber(s) {
  const v = Number(s);
  if (s === null || s === "" || !Number.isFinite(v)) return String(s);
  const a = Math.abs(v);
  if (v === 0 || (a >= 1e-3 && a < 1e6)) return String(parseFloat(v.toPrecision(6)));
  return v.toExponential(3).replace(/\.?0+e/, "e");
}

function setLimit(el, value) {
  if (!el || value === null) return;
  el.dataset.value = value;
  el.textContent = formatNumber(value);
}

function dataURL(blob) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

function setupPicture() {
  const img = document.getElementById("picture");
  const form = document.getElementById("picture-controls");
  if (!img || !form) return;
  const plot = img.classList.contains("plot");
  const caption = document.getElementById("picture-slice");
  const status = document.getElementById("picture-status");
  const note = document.getElementById("range-note");
  const bar = document.getElementById("colorbar");
  const cmapName = document.getElementById("colormap-name");
  const lo = document.getElementById("range-min");
  const hi = document.getElementById("range-max");
  const xFirst = document.getElementById("x-first");
  const xLast = document.getElementById("x-last");
  let drawing = 0;
  // show fetches a picture, then puts it on the page with the range and
  // colormap its headers name (a data: URL, as the pages' policy allows).
  const show = async (url, slice) => {
    const n = ++drawing;
    status.textContent = "drawing…";
    try {
      const resp = await fetch(url, { credentials: "same-origin" });
      if (!resp.ok) throw new Error(resp.status + ": " + (await resp.text()).trim());
      const src = await dataURL(await resp.blob());
      if (n !== drawing) return; // a later drawing took over
      img.src = src;
      setLimit(lo, resp.headers.get("X-Zarrgw-Vmin"));
      setLimit(hi, resp.headers.get("X-Zarrgw-Vmax"));
      const cmap = resp.headers.get("X-Zarrgw-Colormap");
      if (bar && cmap) {
        bar.src = "/ui/colorbar/" + encodeURIComponent(cmap) + ".png";
        bar.dataset.colormap = cmap;
        bar.alt = "colormap " + cmap;
        if (cmapName) cmapName.textContent = cmap;
      }
      caption.textContent = slice;
      if (xFirst && xLast) {
        const [from, to] = slice.split(":").map(Number);
        xFirst.textContent = from;
        xLast.textContent = to - 1;
      }
      status.textContent = "";
    } catch (e) {
      if (n === drawing) status.textContent = "not drawn: " + e.message;
    }
  };
  const draw = () => {
    const slice = sliceFrom(form);
    let url = img.dataset.base + "&slice=" + encodeURIComponent(slice);
    if (plot) {
      const [from, to] = slice.split(":").map(Number);
      const above = Number(img.dataset.sampleAbove || 0);
      if (above > 0 && to - from > above) url += "&downsample=stride";
    }
    const cmap = form.elements["cmap"];
    if (cmap) url += "&cmap=" + encodeURIComponent(cmap.value);
    const vmin = form.elements["vmin"], vmax = form.elements["vmax"];
    const given = vmin && vmax && (vmin.value !== "" || vmax.value !== "");
    if (given) {
      if (vmin.value === "" || vmax.value === "" || !(Number(vmax.value) > Number(vmin.value))) {
        status.textContent = "give both " + (plot ? "bottom and top" : "vmin and vmax") + ", the first below the second (or neither)";
        return;
      }
      url += "&vmin=" + encodeURIComponent(vmin.value) + "&vmax=" + encodeURIComponent(vmax.value);
    }
    if (note) note.textContent = given ? "range given" : "range from the data" + (plot ? " (least to greatest)" : " (2nd to 98th percentile)");
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) {
      if (v !== "") params.append(k, v);
    }
    history.replaceState(null, "", "?" + params.toString());
    show(url, slice);
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    draw();
  });
  for (const r of form.querySelectorAll("input[type=range]")) {
    r.addEventListener("input", () => {
      r.nextElementSibling.textContent = r.value;
    });
    r.addEventListener("change", draw);
  }
  const reset = document.getElementById("picture-reset");
  reset.hidden = false;
  reset.addEventListener("click", () => {
    for (const el of form.querySelectorAll("input[type=number]")) {
      if (el.name.startsWith("start")) el.value = 0;
      if (el.name.startsWith("stop")) el.value = el.max;
    }
    draw();
  });
  show(img.dataset.src, caption.textContent);
}

// jsonElements returns the elements of an array API JSON document's
// "data" as written: numbers exactly as sent (64-bit integers too),
// strings unquoted, complex numbers as [re, im].
function jsonElements(text) {
  const at = text.indexOf('"data": [');
  if (at < 0) throw new Error("no data in the answer");
  const out = [];
  let depth = 0, inString = false, escaped = false;
  let begin = at + '"data": ['.length;
  for (let i = begin; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
    } else if (c === "[") {
      depth++;
    } else if (c === "]" && depth > 0) {
      depth--;
    } else if ((c === "," || c === "]") && depth === 0) {
      const token = text.slice(begin, i).trim();
      if (token !== "") out.push(token[0] === '"' ? JSON.parse(token) : token);
      begin = i + 1;
      if (c === "]") break;
    }
  }
  return out;
}

function setupValues() {
  const table = document.getElementById("values");
  if (!table) return;
  const url = table.dataset.url;
  const size = Number(table.dataset.size);
  const page = Number(table.dataset.page);
  const body = table.tBodies[0];
  const pager = document.getElementById("values-pager");
  const range = document.getElementById("values-range");
  const prev = document.getElementById("values-prev");
  const next = document.getElementById("values-next");
  const from = document.getElementById("values-from");
  const link = document.getElementById("values-json");
  pager.hidden = false;
  let start = 0, loading = 0;
  const load = async (s) => {
    s = Math.max(0, Math.min(Math.floor(s) || 0, size - 1));
    const stop = Math.min(size, s + page);
    const slice = s + ":" + stop;
    const href = url + "?format=json&slice=" + encodeURIComponent(slice);
    const n = ++loading;
    range.textContent = "loading…";
    try {
      const resp = await fetch(href, { credentials: "same-origin" });
      const text = await resp.text();
      if (!resp.ok) throw new Error(resp.status + ": " + text.trim());
      const values = jsonElements(text);
      if (n !== loading) return;
      body.replaceChildren(...values.map((v, i) => {
        const tr = document.createElement("tr");
        const th = document.createElement("th");
        const td = document.createElement("td");
        th.textContent = String(s + i);
        td.textContent = v;
        tr.append(th, td);
        return tr;
      }));
      start = s;
      range.textContent = s + "–" + (stop - 1) + " of " + size;
      prev.disabled = s === 0;
      next.disabled = stop >= size;
      from.value = s;
      link.href = href;
      link.textContent = "values " + slice + " as JSON";
    } catch (e) {
      if (n === loading) range.textContent = "not read: " + e.message;
    }
  };
  prev.addEventListener("click", () => load(start - page));
  next.addEventListener("click", () => load(start + page));
  from.addEventListener("change", () => load(Number(from.value)));
  load(0);
}

document.addEventListener("DOMContentLoaded", () => {
  setupToken();
  setupPicture();
  setupValues();
});
