import type { KeyRow } from "../../keys/keys.queries.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { formatUtc } from "./format.ts";
import { keyActions, keyStatus } from "./key-status.ts";
import { Layout } from "./layout.tsx";

export interface RevokePageProps {
  email: string;
  keyRow: KeyRow;
  csrf: string;
  now: Date;
}

/** Asks before a revocation, which cannot be undone; without scripts, like every dashboard page. */
export function RevokePage({ email, keyRow, csrf, now }: RevokePageProps) {
  const name = `…${keyRow.lastFour}`;
  if (!keyActions(keyRow, now).revoke) {
    return (
      <Layout title="This key no longer works" signedIn={{ email, csrf }}>
        <p>
          The key ending <code>{name}</code> has nothing left to revoke: {keyStatus(keyRow, now)}.
        </p>
        <p>
          <a href="/dashboard/account">Back to your account</a>
        </p>
      </Layout>
    );
  }
  return (
    <Layout title="Revoke this key?" signedIn={{ email, csrf }}>
      <dl class="facts">
        <dt>Key</dt>
        <dd>
          <code>{name}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatUtc(keyRow.createdAt)}</dd>
        <dt>Status</dt>
        <dd>{keyStatus(keyRow, now)}</dd>
      </dl>
      <p>
        Every request with this key is refused from the next one on, everywhere. This cannot be
        undone: clients that still use it stop working until they get another key.
      </p>
      <div class="actions">
        <form method="post" action={`/dashboard/keys/${keyRow.hash}/revoke`}>
          <input type="hidden" name={CSRF_FIELD} value={csrf} />
          <button type="submit" class="danger">
            Revoke the key ending {name}
          </button>
        </form>
        <a class="button secondary" href="/dashboard/account">
          Keep it
        </a>
      </div>
    </Layout>
  );
}
