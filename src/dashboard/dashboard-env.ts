import type { Account } from "../accounts/accounts.queries.ts";
import type { AppEnv } from "../env.ts";
import type { Session } from "./session.ts";

/** The app's bindings plus what the session guard finds out about the signed-in person. */
export interface DashboardEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    session: Session;
    account: Account;
  };
}
