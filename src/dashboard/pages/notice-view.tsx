import type { Notice } from "../notices.ts";
import { formatUtc } from "./format.ts";
import { COPY_KEY_SCRIPT_PATH } from "./layout.tsx";

/** A secret's only showing: in a read-only field to copy, with a copy button when scripts run. */
function OneTimeSecret(props: { value: string; index: number; label: string; what: string }) {
  const { value, index, label, what } = props;
  const id = `new-${what}-${index}`;
  return (
    <section class="new-key" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} for={id}>
        {label}
      </label>
      <div class="copy-row">
        <input
          id={id}
          type="text"
          readonly
          value={value}
          data-testid={what === "key" ? "new-key" : "new-secret"}
        />
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
        and copy (Ctrl+C or ⌘C). <strong>It will not be shown again</strong>
        {what === "key" ? "; afterwards this page shows only its last four characters." : "."}
      </p>
    </section>
  );
}

function NoticeItem({ notice, index }: { notice: Notice; index: number }) {
  switch (notice.kind) {
    case "key-created":
      return <OneTimeSecret value={notice.key} index={index} label="Your new API key" what="key" />;
    case "key-revoked":
      return (
        <p class="notice">
          The key ending …{notice.lastFour} is revoked: requests with it are refused from now on.
        </p>
      );
    case "key-rolled":
      return (
        <>
          <p class="notice">
            The old key ending …{notice.oldLastFour} keeps working until{" "}
            {formatUtc(new Date(notice.graceEndsAt))}, then is refused. Switch your clients to the
            new key before then.
          </p>
          <OneTimeSecret value={notice.key} index={index} label="Your new API key" what="key" />
        </>
      );
    case "webhook-secret":
      return (
        <>
          <p class="notice">
            {notice.made === "registered"
              ? `The endpoint ${notice.url} is registered: it receives the events it asked for from now on.`
              : `The endpoint ${notice.url} has a new signing secret. Deliveries are signed with the old one too for 24 hours, so switch your receiver to the new one before then.`}
          </p>
          <OneTimeSecret
            value={notice.secret}
            index={index}
            label="The endpoint's signing secret"
            what="secret"
          />
        </>
      );
    case "done":
      return <p class="notice">{notice.text}</p>;
  }
}

/**
 * What the last form did, each notice once; the copy button's script comes
 * with a notice that shows a secret.
 */
export function Notices({ notices }: { notices: Notice[] }) {
  const secret = notices.some((notice) => !["key-revoked", "done"].includes(notice.kind));
  return (
    <>
      {notices.map((notice, index) => (
        <NoticeItem notice={notice} index={index} />
      ))}
      {secret && <script src={COPY_KEY_SCRIPT_PATH} defer />}
    </>
  );
}

/** The top of a page below another: the way back to it, then what the last form did. */
export function BackTo(props: { href: string; text: string; notices: Notice[] }) {
  const { href, text, notices } = props;
  return (
    <>
      <p>
        <a href={href}>{text}</a>
      </p>
      <Notices notices={notices} />
    </>
  );
}
