import { COPY_KEY_SCRIPT_PATH } from "../copy-key-script.ts";
import type { Notice } from "../notices.ts";
import { formatUtc } from "./format.ts";

function NewKey({ value, index }: { value: string; index: number }) {
  const id = `new-key-${index}`;
  return (
    <section class="new-key" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} for={id}>
        Your new API key
      </label>
      <div class="copy-row">
        <input id={id} type="text" readonly value={value} data-testid="new-key" />
        <button
          type="button"
          class="secondary"
          data-copy-from={id}
          data-copy-status={`${id}-status`}
          hidden
        >
          Copy
        </button>
      </div>
      <p class="hint" id={`${id}-status`} role="status" />
      <p>
        Copy it now and keep it somewhere safe: click the field, select all (Ctrl+A, or ⌘A on a Mac)
        and copy (Ctrl+C or ⌘C). <strong>It will not be shown again</strong>; afterwards this page
        shows only its last four characters.
      </p>
    </section>
  );
}

function NoticeView({ notice, index }: { notice: Notice; index: number }) {
  if (notice.kind === "key-created") return <NewKey value={notice.key} index={index} />;
  if (notice.kind === "key-revoked") {
    return (
      <p class="notice">
        The key ending …{notice.lastFour} is revoked: requests with it are refused from now on.
      </p>
    );
  }
  return (
    <>
      <p class="notice">
        The old key ending …{notice.oldLastFour} keeps working until{" "}
        {formatUtc(new Date(notice.graceEndsAt))}, then is refused. Switch your clients to the new
        key before then.
      </p>
      <NewKey value={notice.key} index={index} />
    </>
  );
}

/** What the last form did: a new key (its only showing, with a copy button), or what became of one. */
export function AccountNotices({ notices }: { notices: Notice[] }) {
  const showsKey = notices.some((notice) => notice.kind !== "key-revoked");
  return (
    <>
      {notices.map((notice, index) => (
        <NoticeView notice={notice} index={index} />
      ))}
      {showsKey && <script src={COPY_KEY_SCRIPT_PATH} defer />}
    </>
  );
}
