import { finished } from "node:stream";
import { create } from "@bufbuild/protobuf";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { Account } from "../accounts/account-store.js";
import type { AppContext } from "../app/app-context.js";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { hasNothingToRead } from "../classifiers/language/language-gate.js";
import { ApiError, ERROR_CODE_HEADER } from "../errors/api-error.js";
import { countModerate } from "../metering/count-moderate.js";
import { createModerator } from "../moderation/moderate.js";
import { compilePolicyCooperatively } from "../policies/apply-policy.js";
import { listTooLarge, mostTerms, validatePolicyRulesCooperatively, type Policy, type PolicyRules } from "../policies/policy.js";
import { decideRateLimit, rateLimitExceeded } from "../rate-limit/decide-rate-limit.js";
import { formatRateLimitHeaders } from "../rate-limit/rate-limit-headers.js";
import { redirect, sendPage } from "./replies.js";
import { policyPage, type PolicyForm, type PolicyPageExtras, type TryResult } from "./pages/policy-page.js";
import { fieldOfPolicyError, policyErrorText } from "./policy-errors.js";
import { stateOf } from "./request-state.js";

/** The policy form's body limit: every term at 100 characters of 4 UTF-8 bytes, percent-encoded. */
const POLICY_FORM_BYTES = 16 * 1024 * 1024;

/**
 * The account's policy page (docs/policies.md): edit, try the draft without saving, save (recorded
 * as user:<email>), and every change. Drafts go through validatePolicyRules like the API's and
 * modctl's; a refusal keeps what was typed and says why.
 */
export function registerPolicyPages(app: FastifyInstance, ctx: AppContext): void {
  const moderate = createModerator({ textClassifier: ctx.textClassifier, ...(ctx.textFlagBars ? { textFlagBars: ctx.textFlagBars } : {}) });
  // The thresholds a blank input keeps: the trained model's (its header); the pattern fallback has none to show.
  const defaults = ctx.textFlagBars ?? {};

  const show = async (reply: FastifyReply, account: Account, csrf: string, form: PolicyForm, extra: PolicyPageExtras = {}, status = 200) => {
    const current = await ctx.policies.current({ accountId: account.id });
    const changes = await ctx.policies.history(account.id);
    return sendPage(reply, policyPage({ account, csrf, form, version: current?.version, changes, defaults, ...extra }), status);
  };

  app.get("/dashboard/policy", async (request: FastifyRequest, reply: FastifyReply) => {
    const { account, csrf } = stateOf(request);
    if (!account) return redirect(reply, "/dashboard/login");
    const query = request.query as Record<string, string | undefined>;
    return show(reply, account, csrf, formOf(await ctx.policies.current({ accountId: account.id })), outcomeOf(query));
  });

  /** One call against the account's plan limit, as the API's rate-limit interceptor charges it. */
  async function chargeOneCall(account: Account, reply: FastifyReply): Promise<void> {
    const limiter = { limiter: ctx.rateLimiter, failureMode: ctx.config.rateLimit.failureMode, log: ctx.log };
    const decision = await decideRateLimit(limiter, account.id, account.requestsPerMinute);
    // Let through unchecked (store down, failure mode open): counted as the API's calls are.
    if (!decision) ctx.metrics.rateLimitUncounted();
    if (decision && !decision.allowed) throw rateLimitExceeded(account.requestsPerMinute, decision);
    if (decision) reply.headers(formatRateLimitHeaders(decision));
  }

  // A full policy is 10,000 block-list and 1,000 allow-list terms of up to 100 characters: up to
  // 14 MB as a form once percent-encoded, beyond the 16 KiB of the other forms. Read only for a
  // caller with a session (its state is loaded from the cookies before any body).
  // One policy post per account at a time: decoding a 14 MB form takes about 0.3 s of the event
  // loop, and parallel posts from one session held every caller's requests (found by an audit).
  const posting = new Set<string>();
  const postOptions = {
    bodyLimit: POLICY_FORM_BYTES,
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      const { account } = stateOf(request);
      if (!account) return redirect(reply, "/dashboard/login");
      if (posting.has(account.id)) throw new ApiError("rate_limit_exceeded", "Another policy form of this account is still being handled; send one at a time.", { headers: { "retry-after": "1" } });
      posting.add(account.id);
      // finished() calls back for a response already closed too: a caller gone while its session
      // was loaded had its 'close' before this ran, and a 'close' listener left the account locked.
      finished(reply.raw, () => posting.delete(account.id));
    },
  };
  app.post("/dashboard/policy", postOptions, async (request: FastifyRequest, reply: FastifyReply) => {
    const { account, csrf } = stateOf(request);
    if (!account) return redirect(reply, "/dashboard/login");
    const body = request.body as Record<string, unknown>;
    const form: PolicyForm = {
      thresholds: Object.fromEntries(CATEGORY_IDS.map((id) => [id, String(body[`t_${id}`] ?? "").trim()])),
      block: String(body.block ?? ""),
      allow: String(body.allow ?? ""),
      text: String(body.text ?? ""),
    };
    try {
      const draft = draftOf(form);
      if (body.action === "try") {
        // The draft is tried as an API call would be: within the plan's limit (checked before any
        // work: validating and compiling a full draft is the costly part), and counted in the
        // account's usage (a session could otherwise moderate without either).
        // A blank box was tried as " ": the model's scores for no text, shown as "not flagged". A box
        // of punctuation alone ("!!!") has nothing to judge either, and is refused the same way.
        if (hasNothingToRead(form.text)) throw new ApiError("invalid_request", "Enter a text to try the draft on.", { detail: { field: "text" } });
        await chargeOneCall(account, reply);
        const rules = await validatePolicyRulesCooperatively(draft);
        const compiled = await compilePolicyCooperatively({ id: "draft", version: 0, ...rules });
        const input = create(ModerateRequestSchema, { input: [{ type: "text", text: form.text }] });
        const answer = await moderate(input, undefined, compiled);
        await ctx.meter.record(account.id, countModerate(input, answer));
        const result = answer.results![0]!;
        const tried: TryResult = {
          categories: result.categories as TryResult["categories"],
          flagged: Boolean(result.flagged),
          ...(result.language ? { language: result.language } : {}),
          ...(result.notEvaluated ? { notEvaluated: { reason: result.notEvaluated.reason ?? "", language: result.notEvaluated.language ?? "" } } : {}),
        };
        return show(reply, account, csrf, form, { tried });
      }
      // Only the Save button saves: a post naming no action, or another, was saved too.
      if (body.action !== "save") throw new ApiError("invalid_request", 'Choose "Try draft" or "Save policy".');
      // Post/Redirect/Get: a reload of the answer re-posted the form and saved a duplicate version.
      // A draft equal to the policy in force is not saved again (a resend, or Save with no edit).
      const rules = await validatePolicyRulesCooperatively(draft);
      const { policy, saved } = await ctx.policies.saveUnlessSame({ accountId: account.id }, rules, `user:${account.email}`, sameRules);
      return redirect(reply, `/dashboard/policy?${saved ? "saved" : "unchanged"}=${policy?.version ?? 0}`);
    } catch (error) {
      if (error instanceof ApiError) {
        // Retry-After and the rate-limit headers of a refused try, as the API sends them.
        reply.headers(error.headers);
        reply.header(ERROR_CODE_HEADER, error.code);
        const errorField = fieldOfPolicyError(error);
        return show(reply, account, csrf, form, { error: policyErrorText(error), ...(errorField ? { errorField } : {}) }, error.httpStatus);
      }
      throw error;
    }
  });
}

/** What the page says after a save redirected to it: `?saved=N` or `?unchanged=N` (N = 0: no policy). */
function outcomeOf(query: Record<string, string | undefined>): PolicyPageExtras {
  const version = (raw: string | undefined) => (raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : undefined);
  const saved = version(query.saved);
  if (saved !== undefined) return { savedVersion: saved };
  const unchanged = version(query.unchanged);
  return unchanged !== undefined ? { unchangedVersion: unchanged } : {};
}

/** Whether `rules` are the policy in force (no policy: empty rules); threshold order does not count. */
function sameRules(rules: PolicyRules, current: Policy | undefined): boolean {
  const canonical = (r: PolicyRules) => JSON.stringify([Object.entries(r.thresholds).sort(([a], [b]) => (a < b ? -1 : 1)), r.blockList, r.allowList]);
  return canonical(rules) === canonical(current ?? { thresholds: {}, blockList: [], allowList: [] });
}

/** The draft the form describes: blank thresholds left to the model, "off", or a number. */
function draftOf(form: PolicyForm): unknown {
  const thresholds: Record<string, unknown> = {};
  for (const [id, raw] of Object.entries(form.thresholds)) {
    if (raw === "") continue;
    // A decimal number as the API reads one ("1.", "5e-1" included); anything else goes on as text for validation to refuse.
    thresholds[id] = raw.toLowerCase() === "off" ? "off" : /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(raw) ? Number(raw) : raw;
  }
  return {
    thresholds,
    blockList: linesOf(form.block, "block").map(blockLine),
    allowList: linesOf(form.allow, "allow"),
  };
}

/**
 * The non-blank lines of a list's field, trimmed; refused as the API refuses a longer list before
 * any line is built: a 16 MB field of "a\n" made four million lines, held the event loop 3.7 s.
 */
function linesOf(text: string, list: "block" | "allow"): string[] {
  const most = mostTerms(list);
  let count = 0;
  let blank = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      if (!blank) count++;
      blank = true;
    } else if (blank && !isBlank(code)) blank = false;
  }
  if (!blank) count++;
  if (count > most) throw listTooLarge(list, count);
  return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
}

/** What String.prototype.trim takes away (ASCII and Unicode white space, the BOM). */
const isBlank = (code: number): boolean => code === 32 || (code >= 9 && code <= 13) || (code > 127 && /[\s\ufeff]/.test(String.fromCharCode(code)));

/**
 * One block-list line: "term | category", or a term alone (custom). The last "|" separates a
 * category when what follows is one, or when a space comes before it ("kill | hte" is refused as
 * an unknown category, "kill |" is custom); else it is part of the term: "sh|t" was the term "sh"
 * in category "t", and "ki||" the term "ki|".
 */
function blockLine(line: string): { term: string; category: string } {
  const bar = line.lastIndexOf("|");
  const tail = bar < 0 ? "" : line.slice(bar + 1).trim();
  const separates = bar >= 0 && (BLOCK_CATEGORIES.has(tail) || /\s/.test(line[bar - 1] ?? ""));
  return separates ? { term: line.slice(0, bar).trim(), category: tail || "custom" } : { term: line, category: "custom" };
}
const BLOCK_CATEGORIES: ReadonlySet<string> = new Set([...CATEGORY_IDS, "custom"]);

function formOf(policy: Policy | undefined): PolicyForm {
  return {
    thresholds: Object.fromEntries(CATEGORY_IDS.map((id) => [id, policy?.thresholds[id] === undefined ? "" : String(policy.thresholds[id])])),
    // One term per line, its category after the last "|" (draftOf); a custom term holding a "|"
    // names its category too, so that saving the page unchanged keeps the term whole.
    block: (policy?.blockList ?? []).map((b) => (b.category === "custom" && !b.term.includes("|") ? b.term : `${b.term} | ${b.category}`)).join("\n"),
    allow: (policy?.allowList ?? []).join("\n"),
    text: "",
  };
}
