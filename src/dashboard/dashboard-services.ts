import type { AccountStore } from "../accounts/account-store.js";
import { createInviteStore, type InviteStore } from "../accounts/invite-store.js";
import type { Database } from "../storage/database.js";
import { createLoginLimiter, type LoginLimiter } from "./login-limiter.js";
import { createSessionStore, type SessionStore } from "./session-store.js";

export interface DashboardServices {
  sessions: SessionStore;
  loginLimiter: LoginLimiter;
  invites: InviteStore;
}

/** Built once per process; sessions and log-in failures live in SQL, shared by every replica. */
export function createDashboardServices(deps: { db: Database; accounts: AccountStore; clock: () => number }): DashboardServices {
  return {
    sessions: createSessionStore(deps.db, deps.clock),
    loginLimiter: createLoginLimiter({ db: deps.db, clock: deps.clock }),
    invites: createInviteStore(deps.db, deps.clock),
  };
}
