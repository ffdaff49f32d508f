// zarrgw pages: the bearer token (kept in session storage, mirrored to a
// session cookie so that page loads and pictures carry it) and the picture
// controls. Everything else works without this script.
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

function setupPicture() {
  const img = document.getElementById("picture");
  const form = document.getElementById("picture-controls");
  if (!img || !form) return;
  form.hidden = false;
  const caption = document.getElementById("picture-slice");
  const draw = () => {
    const slice = sliceFrom(form);
    const cmap = form.elements["cmap"].value;
    img.src = img.dataset.base + "&slice=" + encodeURIComponent(slice) + "&cmap=" + encodeURIComponent(cmap);
    caption.textContent = slice;
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
  document.getElementById("picture-reset").addEventListener("click", () => {
    for (const el of form.querySelectorAll("input[type=number]")) {
      el.value = el.name.startsWith("start") ? 0 : el.max;
    }
    draw();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  setupToken();
  setupPicture();
});
