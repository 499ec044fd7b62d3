import type { Account } from "../../accounts/account-store.js";
import { csrfField, esc } from "./html.js";

type NavItem = "overview" | "keys" | "usage" | "playground" | "policy";

const NAV: Array<[NavItem, string, string]> = [
  ["overview", "Overview", "/dashboard"],
  ["keys", "API keys", "/dashboard/keys"],
  ["usage", "Usage", "/dashboard/usage"],
  ["playground", "Playground", "/dashboard/playground"],
  ["policy", "Policy", "/dashboard/policy"],
];

/**
 * The page frame: header with navigation when logged in, a centred column otherwise. `error`: the
 * page answers a refused form, and its title says so first (the title is read out on load).
 */
export function layout(options: { title: string; body: string; account?: Account | undefined; csrf: string; active?: NavItem; error?: boolean }): string {
  const nav = options.account
    ? `<nav class="nav" aria-label="Main">${NAV.map(([id, label, href]) =>
        `<a href="${href}"${id === options.active ? ' aria-current="page"' : ""}>${label}</a>`).join("")}</nav>
       <form method="post" action="/dashboard/logout" class="logout">${csrfField(options.csrf)}
         <span class="who">${esc(options.account.email)}</span> <a href="/dashboard/password">Password</a> <button type="submit" class="link">Log out</button></form>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.error ? "Error: " : ""}${esc(options.title)} · Moderation</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<a class="skip-link visually-hidden" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="/dashboard">◆ Moderation</a>${nav}</header>
<main id="main" tabindex="-1" class="${options.account ? "main" : "main narrow"}">
${options.body}
</main>
</body>
</html>`;
}

export function notice(kind: "info" | "error" | "success", text: string): string {
  return `<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}"${kind === "error" ? ` id="${ERROR_ID}"` : ""}>${esc(text)}</p>`;
}

/** The id of a page's error notice, which the input it names points at (aria-describedby). */
export const ERROR_ID = "form-error";

/**
 * An input's attributes for its hint and, when the page's error names it, the error: marked
 * invalid, described by the message and focused on load (WCAG 3.3.1: the alert alone at the top
 * of a fresh page was often not read, and focus stayed on <body>).
 */
export function fieldAttrs(invalid: boolean, hintId?: string): string {
  const describedBy = [invalid ? ERROR_ID : "", hintId ?? ""].filter(Boolean).join(" ");
  return `${invalid ? ' aria-invalid="true" autofocus' : ""}${describedBy ? ` aria-describedby="${describedBy}"` : ""}`;
}
