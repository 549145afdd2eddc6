import type { KeyUsage } from "../../accounts/account-usage.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { formatCount, formatUtc } from "./format.ts";
import { keyActions, keyStatus } from "./key-status.ts";

export interface KeyTableProps {
  keys: KeyRow[];
  usage: Map<string, KeyUsage>;
  csrf: string;
  now: Date;
}

function KeyActions({ keyRow, csrf, now }: { keyRow: KeyRow; csrf: string; now: Date }) {
  const actions = keyActions(keyRow, now);
  if (!actions.revoke) return <span class="muted">None</span>;
  return (
    <div class="actions">
      {actions.roll && (
        <form method="post" action={`/dashboard/keys/${keyRow.hash}/roll`}>
          <input type="hidden" name={CSRF_FIELD} value={csrf} />
          <button type="submit" class="secondary">
            Roll
          </button>
        </form>
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
export function KeyTable({ keys, usage, csrf, now }: KeyTableProps) {
  return (
    <table class="keys">
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Created</th>
          <th scope="col">Status</th>
          <th scope="col">Requests today</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => {
          const today = usage.get(key.hash)?.day;
          return (
            <tr data-key-last-four={key.lastFour}>
              <td data-label="Key">
                <code>…{key.lastFour}</code>
              </td>
              <td data-label="Created" class="nowrap">
                {formatUtc(key.createdAt)}
              </td>
              <td data-label="Status">{keyStatus(key, now)}</td>
              <td data-label="Requests today" class="nowrap">
                {today ? `${formatCount(today.used)} of ${formatCount(today.limit)}` : "—"}
              </td>
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
