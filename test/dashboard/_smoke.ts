import { startTestServer } from "/work/main/test/support/test-server.js";
const s = await startTestServer();
const u = s.httpUrl;
let r = await fetch(u + "/dashboard/signup");
const cookie = r.headers.get("set-cookie")!.split(";")[0]!;
const html = await r.text();
const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
console.log(r.status, cookie.slice(0, 20), csrf.length);
r = await fetch(u + "/dashboard/signup", { method: "POST", redirect: "manual", headers: { cookie, origin: u, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ _csrf: csrf, email: "a@b.co", password: "correct horse battery" }) });
console.log(r.status, r.headers.get("location"), r.headers.get("set-cookie"));
const sess = r.headers.get("set-cookie")!.split(";")[0]!;
for (const p of ["/dashboard", "/dashboard/keys", "/dashboard/usage?granularity=hour", "/dashboard/playground", "/dashboard/assets/app.css"]) {
  r = await fetch(u + p, { headers: { cookie: sess } });
  const t = await r.text();
  console.log(p, r.status, t.length, /error/i.test(t) ? "has-error-word" : "");
}
r = await fetch(u + "/dashboard/keys", { headers: { cookie: sess } });
const csrf2 = /name="_csrf" value="([^"]+)"/.exec(await r.text())![1]!;
r = await fetch(u + "/dashboard/keys", { method: "POST", headers: { cookie: sess, origin: u, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ _csrf: csrf2, name: "prod" }) });
const t = await r.text();
console.log(r.status, /id="new-key-secret">([^<]+)/.exec(t)?.[1]);
await s.close();
