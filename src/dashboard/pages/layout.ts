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

/** The page frame: header with navigation when logged in, a centred column otherwise. */
export function layout(options: { title: string; body: string; account?: Account | undefined; csrf: string; active?: NavItem }): string {
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
<title>${esc(options.title)} · Moderation</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="/dashboard">◆ Moderation</a>${nav}</header>
<main class="${options.account ? "main" : "main narrow"}">
${options.body}
</main>
</body>
</html>`;
}

export function notice(kind: "info" | "error" | "success", text: string): string {
  return `<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}">${esc(text)}</p>`;
}
