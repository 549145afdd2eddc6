import { Hono, type MiddlewareHandler } from "hono";
import type { DashboardContext, DashboardEnv } from "./session.ts";

/** What a signed-in page asks of its request: a session, then (on a post) the form's CSRF token. */
export type SignedIn = readonly [MiddlewareHandler<DashboardEnv>, MiddlewareHandler<DashboardEnv>];

type Page = (c: DashboardContext) => Response | Promise<Response>;

/** The pages that add, show, edit and delete one kind of the account's records; `list` where it has one. */
interface RecordPages {
  list?: Page;
  showNew: Page;
  create: Page;
  show: Page;
  update: Page;
  showEdit: Page;
  confirmDelete: Page;
  delete: Page;
}

/**
 * One kind of record's pages at their addresses: the list, the form that
 * adds one, each record's page, its edit form and its deletion with the page
 * that asks first. Every page needs a session, every post its CSRF token too.
 */
export function recordPages(signedIn: SignedIn, pages: RecordPages): Hono<DashboardEnv> {
  const records = new Hono<DashboardEnv>();
  const [session] = signedIn;
  if (pages.list) records.get("/", session, pages.list);
  records.get("/new", session, pages.showNew);
  records.post("/", ...signedIn, pages.create);
  records.get("/:id", session, pages.show);
  records.post("/:id", ...signedIn, pages.update);
  records.get("/:id/edit", session, pages.showEdit);
  records.get("/:id/delete", session, pages.confirmDelete);
  records.post("/:id/delete", ...signedIn, pages.delete);
  return records;
}
