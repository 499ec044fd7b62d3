import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createAccountStore, type Account, type ApiKeyInfo } from "../accounts/account-store.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { BUCKET_MS } from "../metering/usage-counts.js";
import { redirect, sendPage } from "./replies.js";
import { errorPage } from "./pages/auth-pages.js";
import { alreadyRotatedPage, confirmKeyActionPage, keysPage, newKeyPage, type KeyAction } from "./pages/keys-page.js";
import { overviewPage } from "./pages/overview-page.js";
import { playgroundPage } from "./pages/playground-page.js";
import { fillBuckets } from "./pages/usage-chart.js";
import { usagePage } from "./pages/usage-page.js";
import { createKeyOnce, type KeyOnceResult } from "./key-once.js";
import { expectedOrigin, stateOf } from "./request-state.js";
import type { Database } from "../storage/database.js";

const NOTICES: Record<string, string> = {
  welcome: "Welcome! Create your first API key below.",
  revoked: "The key is revoked. Calls using it are now refused.",
};

/**
 * The logged-in pages. Every query is scoped to the session's account: key ids in URLs are
 * only ever looked up together with that account, so guessing another account's id finds
 * nothing.
 */
export function registerAccountPages(app: FastifyInstance, ctx: AppContext): void {
  const withAccount = (handler: (request: FastifyRequest, reply: FastifyReply, account: Account, csrf: string) => Promise<FastifyReply>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { account, csrf } = stateOf(request);
      if (!account) return redirect(reply, "/dashboard/login");
      return handler(request, reply, account, csrf);
    };

  const readUsage = async (accountId: string, granularity: "day" | "hour", count: number) => {
    const now = ctx.clock();
    await ctx.meter.flush();
    const report = await ctx.usage.read(accountId, granularity, now - (count - 1) * BUCKET_MS[granularity], now + 1);
    return { totals: report.totals, points: fillBuckets(report.buckets, granularity, now, count) };
  };

  app.get("/dashboard", withAccount(async (_request, reply, account, csrf) => {
    const keys = await ctx.accounts.listKeys(account.id);
    const usage = await readUsage(account.id, "day", 30);
    return sendPage(reply, overviewPage({ account, csrf, activeKeys: keys.filter((k) => k.revokedAt === null).length, ...usage }));
  }));

  app.get("/dashboard/keys", withAccount(async (request, reply, account, csrf) => {
    await ctx.keyUsage.flush();
    const query = request.query as Record<string, string | undefined>;
    const noticeKey = Object.keys(NOTICES).find((k) => query[k] !== undefined);
    return sendPage(reply, keysPage({ account, csrf, keys: await ctx.accounts.listKeys(account.id), notice: noticeKey ? NOTICES[noticeKey] : undefined }));
  }));

  const keyOnce = createKeyOnce({ db: ctx.db, clock: ctx.clock });
  // The account store on key-once's transaction (its own transactions join it, on both drivers), so
  // the form's token, the revocation and the new key commit together.
  const accountsIn = (tx: Database) => createAccountStore(tx, ctx.clock);
  app.post("/dashboard/keys", withAccount(async (request, reply, account, csrf) => {
    const body = request.body as Record<string, unknown>;
    const name = String(body.name ?? "").trim() || "default";
    let made: KeyOnceResult<Awaited<ReturnType<typeof ctx.accounts.createKey>>, ApiKeyInfo>;
    try {
      made = await keyOnce(account.id, body.once, (tx) => accountsIn(tx).createKey(account.id, name), async (tx, keyId) =>
        // Already revoked by hand meanwhile: nothing left to undo, and nothing to report.
        accountsIn(tx).revokeKey(keyId, { accountId: account.id }).catch((error: unknown) => {
          if (!(error instanceof ApiError && error.code === "not_found")) throw error;
          return undefined;
        }));
    } catch (error) {
      if (error instanceof ApiError && error.code === "too_many_keys") return sendPage(reply, errorPage(csrf, "Too many keys", error.message), 409);
      throw error;
    }
    // Rendered in the POST response, never put in a URL: the secret exists only on this page. A
    // reload sends the form again; the page then says which secret (perhaps copied) it revoked.
    return sendPage(reply, newKeyPage({ account, csrf, key: made.key, replaced: made.replaced, apiOrigin: expectedOrigin(request, ctx.config.dashboardOrigin) }));
  }));

  // Where a Rotate or Revoke button leads without JavaScript: the question, asked before anything
  // changes (a GET changes nothing; the POST routes below do the work, behind the CSRF check).
  // app.js asks with window.confirm and posts directly instead.
  for (const action of ["revoke", "rotate"] as const satisfies readonly KeyAction[]) {
    app.get(`/dashboard/keys/:keyId/${action}`, withAccount(async (request, reply, account, csrf) => {
      const { keyId } = request.params as { keyId: string };
      const key = await ctx.accounts.getKey(keyId);
      if (key?.accountId !== account.id) return sendPage(reply, errorPage(csrf, "Key not found", "You have no API key with that id."), 404);
      if (key.revokedAt !== null) return sendPage(reply, alreadyRotatedPage(account, csrf, key, await successorOf(key, key.revokedAt)), 409);
      return sendPage(reply, confirmKeyActionPage(account, csrf, key, action));
    }));
  }

  app.post("/dashboard/keys/:keyId/revoke", withAccount(async (request, reply, account, csrf) => {
    const { keyId } = request.params as { keyId: string };
    try {
      await ctx.accounts.revokeKey(keyId, { accountId: account.id });
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") return sendPage(reply, errorPage(csrf, "Key not found", "You have no API key with that id."), 404);
      throw error;
    }
    return redirect(reply, "/dashboard/keys?revoked=1");
  }));

  app.post("/dashboard/keys/:keyId/rotate", withAccount(async (request, reply, account, csrf) => {
    const { keyId } = request.params as { keyId: string };
    try {
      // One transaction (account-store.ts rotateKey): a double click rotates once, the other gets 409.
      // The old key's policy override goes with its name to the new secret, in the same transaction.
      const carryOver = (tx: Database, from: string, to: string) => ctx.policies.carryKeyOverride(tx, account.id, from, to, `user:${account.email}`);
      const { key, rotatedFrom } = await ctx.accounts.rotateKey(keyId, account.id, { carryOver });
      return sendPage(reply, newKeyPage({ account, csrf, key, rotatedFrom, apiOrigin: expectedOrigin(request, ctx.config.dashboardOrigin) }));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "not_found")) throw error;
      // A reload of the "Key rotated" page (or a double click) posts the rotation again for the
      // key it revoked: "not found" blamed the user while the new key was live.
      const gone = await revokedKeyOf(account.id, keyId);
      if (gone) return sendPage(reply, alreadyRotatedPage(account, csrf, gone.key, gone.successor), 409);
      return sendPage(reply, errorPage(csrf, "Key not found", "You have no active API key with that id."), 404);
    }
  }));

  /** The account's revoked key `keyId`, and its rotation's successor, if any (successorOf). */
  const revokedKeyOf = async (accountId: string, keyId: string) => {
    const key = await ctx.accounts.getKey(keyId);
    if (key?.accountId !== accountId || key.revokedAt === null) return undefined;
    return { key, successor: await successorOf(key, key.revokedAt) };
  };
  /** The live key of a revoked key's name made when it was revoked: its rotation's successor (the store keeps no link). */
  const successorOf = async (key: ApiKeyInfo, revokedAt: number) =>
    (await ctx.accounts.listKeys(key.accountId)).find((k) => k.revokedAt === null && k.name === key.name && k.createdAt >= revokedAt);

  app.get("/dashboard/usage", withAccount(async (request, reply, account, csrf) => {
    const granularity = (request.query as Record<string, string | undefined>).granularity === "hour" ? "hour" : "day";
    const usage = await readUsage(account.id, granularity, granularity === "day" ? 30 : 48);
    return sendPage(reply, usagePage({ account, csrf, granularity, ...usage }));
  }));

  app.get("/dashboard/playground", withAccount(async (_request, reply, account, csrf) => sendPage(reply, playgroundPage({ account, csrf }))));

  app.get("/dashboard/", async (_request, reply) => redirect(reply, "/dashboard"));
}
