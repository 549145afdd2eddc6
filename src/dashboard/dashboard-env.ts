import type { Account } from "../accounts/accounts.queries.ts";
import type { AppEnv } from "../env.ts";
import type { Session } from "./session.ts";

/**
 * The app's bindings plus what the dashboard's middleware finds out: the
 * posted form, who is signed in, whose invite a link is.
 */
export interface DashboardEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    form: Record<string, string | File>;
    session: Session;
    account: Account;
    invited: Account;
  };
}
