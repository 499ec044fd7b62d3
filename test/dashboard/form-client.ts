/** A tiny cookie-keeping HTTP client that fills in the CSRF token like the dashboard's forms do. */
export function createFormClient(baseUrl: string, options: { origin?: string | null } = {}) {
  const jar = new Map<string, string>();
  let lastCsrf = "";
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  };
  const client = {
    jar,
    async get(path: string, headers: Record<string, string> = {}) {
      const response = await fetch(baseUrl + path, { redirect: "manual", headers: { cookie: cookieHeader(), ...headers } });
      remember(response);
      const html = await response.text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
      if (csrf) lastCsrf = csrf;
      return { status: response.status, html, headers: response.headers };
    },
    /** POSTs a form; `_csrf` defaults to the token of the last page fetched. */
    async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
      const origin = options.origin === undefined ? baseUrl : options.origin;
      const response = await fetch(baseUrl + path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded", ...(origin ? { origin } : {}), ...headers },
        body: new URLSearchParams({ _csrf: lastCsrf, ...form }),
      });
      remember(response);
      return { status: response.status, html: await response.text(), headers: response.headers };
    },
    async signup(email: string, password = "a long enough password") {
      await client.get("/dashboard/signup");
      return client.post("/dashboard/signup", { email, password });
    },
    async createKey(name: string) {
      await client.get("/dashboard/keys");
      const page = await client.post("/dashboard/keys", { name });
      const secret = /id="new-key-secret">([^<]+)</.exec(page.html)?.[1];
      if (!secret) throw new Error(`no secret shown (HTTP ${page.status})`);
      return secret;
    },
    get csrf() {
      return lastCsrf;
    },
  };
  return client;
}
