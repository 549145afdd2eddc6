import { keyStateOf, workingUntil } from "../../keys/key-state.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { SCOPES } from "../../scopes.ts";
import type { KeyUsage } from "../account-usage.ts";
import { READ_SCOPES } from "../key-form.ts";
import { ConfirmActions, PostButton } from "./form-fields.tsx";
import { formatCount, formatUtc } from "./format.ts";
import { ACCOUNT_PAGE, ColumnHeads, Layout } from "./layout.tsx";

/** What a person can still do with a key: roll and revoke an active one, only revoke a rolled one. */
function keyActions(key: KeyRow, now: Date): { roll: boolean; revoke: boolean } {
  const state = keyStateOf(key, now.getTime());
  return { roll: state === "active", revoke: state === "active" || state === "rolled" };
}

function keyStatus(key: KeyRow, now: Date): string {
  const until = workingUntil(key);
  switch (keyStateOf(key, now.getTime())) {
    case "revoked":
      return `Revoked ${formatUtc(key.revokedAt ?? now)}`;
    case "rolled":
      return `Rolled: works until ${formatUtc(until ?? now)}, then refused`;
    case "expired":
      return `Expired ${formatUtc(until ?? now)}`;
    case "active":
      return "Active";
  }
}

/** The key's scopes in words: a preset's name when they are one. */
function accessOf(scopes: readonly string[]): string {
  const held = new Set(scopes);
  const exactly = (set: readonly string[]) =>
    held.size === set.length && set.every((scope) => held.has(scope));
  if (exactly(SCOPES)) return "Full access";
  if (exactly(READ_SCOPES)) return "Read only";
  return scopes.join(", ");
}

function Access({ keyRow }: { keyRow: KeyRow }) {
  return (
    <div>
      <span data-testid="access">{accessOf(keyRow.scopes)}</span>
      <br />
      <span class="muted">
        {keyRow.allowedRanges ? `From ${keyRow.allowedRanges.join(", ")}` : "From any address"}
      </span>
    </div>
  );
}

/** When the key was last used, to the minute; a dash when its object could not be asked. */
function lastUseOf(usage: KeyUsage | undefined): string {
  if (!usage) return "—";
  return usage.lastUse === undefined ? "Never" : formatUtc(new Date(usage.lastUse));
}

function KeyActions({ keyRow, csrf, now }: { keyRow: KeyRow; csrf: string; now: Date }) {
  const actions = keyActions(keyRow, now);
  if (!actions.revoke) return <span class="muted">None</span>;
  return (
    <div class="actions">
      {actions.roll && (
        <PostButton action={`/dashboard/keys/${keyRow.hash}/roll`} label="Roll" csrf={csrf} />
      )}
      <a class="button secondary danger" href={`/dashboard/keys/${keyRow.hash}/revoke`}>
        Revoke
      </a>
    </div>
  );
}

/**
 * The account's keys, by their last four characters. Narrow screens get one
 * card per key instead of columns, each value labelled (data-label).
 */
export function KeyTable(props: {
  keys: KeyRow[];
  /** What each key's object said (one call per key); empty when they could not be asked. */
  usage: Map<string, KeyUsage>;
  csrf: string;
  now: Date;
}) {
  const { keys, usage, csrf, now } = props;
  return (
    <table class="cards keys">
      <ColumnHeads
        names={["Key", "Access", "Expires", "Last used", "Requests today", "Status", "Actions"]}
      />
      <tbody>
        {keys.map((key) => {
          const used = usage.get(key.hash);
          const today = used?.day;
          return (
            <tr data-key-last-four={key.lastFour}>
              <td data-label="Key">
                <div>
                  <code>…{key.lastFour}</code>
                  <br />
                  <span class="muted">Created {formatUtc(key.createdAt)}</span>
                </div>
              </td>
              <td data-label="Access">
                <Access keyRow={key} />
              </td>
              <td data-label="Expires" data-testid="expires">
                {key.expiresAt ? formatUtc(key.expiresAt) : "Never"}
              </td>
              <td data-label="Last used" data-testid="last-used">
                {lastUseOf(used)}
              </td>
              <td data-label="Requests today">
                {today ? `${formatCount(today.used)} of ${formatCount(today.limit)}` : "—"}
              </td>
              <td data-label="Status">{keyStatus(key, now)}</td>
              <td data-label="Actions">
                <KeyActions keyRow={key} csrf={csrf} now={now} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Asks before a revocation, which cannot be undone; without scripts, like every dashboard page. */
export function RevokePage(props: { email: string; keyRow: KeyRow; csrf: string; now: Date }) {
  const { email, keyRow, csrf, now } = props;
  const name = `…${keyRow.lastFour}`;
  if (!keyActions(keyRow, now).revoke) {
    return (
      <Layout title="This key no longer works" signedIn={{ email, csrf }}>
        <p>
          The key ending <code>{name}</code> has nothing left to revoke: {keyStatus(keyRow, now)}.
        </p>
        <p>
          <a href={ACCOUNT_PAGE}>Back to your account</a>
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
        <dt>Access</dt>
        <dd>
          <Access keyRow={keyRow} />
        </dd>
        <dt>Status</dt>
        <dd>{keyStatus(keyRow, now)}</dd>
      </dl>
      <p>
        Every request with this key is refused from the next one on, everywhere. This cannot be
        undone: clients that still use it stop working until they get another key.
      </p>
      <ConfirmActions
        action={`/dashboard/keys/${keyRow.hash}/revoke`}
        csrf={csrf}
        confirm={<>Revoke the key ending {name}</>}
        back={ACCOUNT_PAGE}
      />
    </Layout>
  );
}
