// Small progressive enhancements; every page works without them except the playground.
"use strict";

// The usage table opened on a phone, where the chart's bars are narrow and their values (tooltips)
// out of reach of touch; a wide screen keeps it folded.
if (window.matchMedia("(max-width: 700px)").matches) {
  for (const details of document.querySelectorAll("details[data-open-narrow]")) details.open = true;
}

// Copy needs this script: the button is hidden in the page and shown here.
for (const button of document.querySelectorAll("[data-copy]")) button.hidden = false;

document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.textContent.trim();
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    // Clipboard API refused (permissions, plain HTTP): select the text so Ctrl+C works.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    copied = Boolean(document.execCommand && document.execCommand("copy"));
  }
  // Said in a live region (a changed button label is often not read out), and only when it is true.
  const status = button.parentElement.querySelector(".copy-status");
  const message = copied ? "Copied" : "Not copied: the text is selected, press Ctrl+C";
  if (status) status.textContent = message;
  button.textContent = copied ? "Copied" : "Copy";
  setTimeout(() => {
    button.textContent = "Copy";
    if (status) status.textContent = "";
  }, copied ? 2000 : 8000);
});

// Rotate and Revoke: without this script their forms GET a page that asks first (keys-page.ts).
// Asked here, a yes posts the action itself: the form's method becomes POST and its CSRF field,
// disabled so that it never goes into the confirmation page's URL, is sent. (The method and the
// fields are read after the submit event, so the change applies to this submission.)
document.addEventListener("submit", (event) => {
  const form = event.target;
  const message = form.dataset && form.dataset.confirm;
  if (!message) return;
  if (!window.confirm(message)) {
    event.preventDefault();
    return;
  }
  if (form.dataset.confirmedMethod) {
    form.method = form.dataset.confirmedMethod;
    for (const input of form.querySelectorAll("[data-confirmed-only]")) input.disabled = false;
  }
});

const playground = document.getElementById("playground");
if (playground) {
  playground.addEventListener("submit", onModerate);
  // Disabled in the page until this listener is in place (playground-page.ts).
  document.getElementById("pg-send").disabled = false;
}

function readAsDataUri(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

async function onModerate(event) {
  event.preventDefault();
  const button = document.getElementById("pg-send");
  // Busy through aria-disabled, not disabled: disabling the focused button sent keyboard focus
  // to <body> (WCAG 2.4.3). Sends while busy are ignored instead.
  if (button.getAttribute("aria-disabled") === "true") return;
  button.setAttribute("aria-disabled", "true");
  try {
    await moderate();
  } finally {
    button.removeAttribute("aria-disabled");
  }
}

async function moderate() {
  const key = document.getElementById("pg-key").value.trim();
  const text = document.getElementById("pg-text").value;
  const file = document.getElementById("pg-image").files[0];
  const input = [];
  if (text.trim()) input.push({ type: "text", text });
  if (file) input.push({ type: "image", base64: await readAsDataUri(file) });
  const card = document.getElementById("pg-result-card");
  const out = document.getElementById("pg-result");
  card.hidden = false;
  if (input.length === 0) {
    out.replaceChildren(alert(el("p", "notice error", "Type some text or choose an image.")));
    return;
  }
  out.replaceChildren(el("p", "muted", "Checking…"));
  try {
    const response = await fetch("/v1/moderate", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ input, analyze_images: document.getElementById("pg-analyze").checked }),
    });
    const body = await response.json();
    out.replaceChildren(response.ok ? renderVerdict(body) : renderError(response.status, body));
  } catch (error) {
    out.replaceChildren(alert(el("p", "notice error", "The request failed: " + error.message)));
  }
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * An error is announced when it appears (role=alert), as the server-rendered notices are: the
 * result's live region sits in a card that is hidden until the first send, so the first message
 * was likely missed by screen readers.
 */
function alert(node) {
  node.setAttribute("role", "alert");
  return node;
}

function renderError(status, body) {
  const error = (body && body.error) || {};
  const box = alert(el("div", "notice error"));
  box.id = "pg-error";
  box.append(el("strong", "", error.code || "HTTP " + status), document.createTextNode(": " + (error.message || "")));
  return box;
}

function renderVerdict(body) {
  const root = el("div");
  const head = el("p");
  const badge = el("span", "badge " + (body.flagged ? "flagged" : "clean"), body.flagged ? "Flagged" : "Not flagged");
  badge.id = "pg-verdict";
  head.append(badge, document.createTextNode(" model " + (body.model || "")));
  root.append(head);
  for (const result of body.results || []) {
    const section = el("div", "verdict");
    section.dataset.index = String(result.index);
    section.append(el("h3", "", "Item " + result.index + " (" + result.type + ") — " + (result.flagged ? "flagged" : "not flagged")));
    const grid = el("div", "scores");
    const categories = Object.entries(result.categories || {}).sort((a, b) => b[1].score - a[1].score);
    if (categories.length === 0) grid.append(el("span", "muted", "No category scores for this item."));
    for (const [name, value] of categories) {
      const meter = el("div", "meter" + (value.flagged ? " flagged" : ""));
      const fill = el("span");
      fill.style.width = Math.round(Math.min(1, Math.max(0, value.score)) * 100) + "%";
      meter.append(fill);
      const label = el("span", "category", name + (value.flagged ? " ⚑" : ""));
      grid.append(label, meter, el("span", "score", value.score.toFixed(2)));
    }
    section.append(grid);
    root.append(section);
  }
  return root;
}
