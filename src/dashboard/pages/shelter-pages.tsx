import type { Shelter } from "../../shelters/shelters.schemas.ts";
import type { Notice } from "../notices.ts";
import { openStreetMapUrl } from "../shelter-form.ts";
import { ConfirmActions, Refusal } from "./form-fields.tsx";
import { ACCOUNT_PAGE, ColumnHeads, Layout } from "./layout.tsx";
import { BackTo } from "./notice-view.tsx";

/** The shelter's fields as a person reads them, with a link that opens its point on OpenStreetMap. */
function ShelterFacts({ shelter }: { shelter: Shelter }) {
  const { address } = shelter;
  const lines = [address.street, address.city, address.region, address.postalCode, address.country];
  return (
    <dl class="facts">
      <dt>Name</dt>
      <dd data-testid="shelter-name">{shelter.name}</dd>
      <dt>Email</dt>
      <dd>{shelter.email}</dd>
      <dt>Phone</dt>
      <dd>{shelter.phone ?? "Not given"}</dd>
      <dt>Website</dt>
      <dd>{shelter.website ?? "Not given"}</dd>
      <dt>Address</dt>
      <dd>{lines.filter((line) => line !== null).join(", ")}</dd>
      <dt>Place</dt>
      <dd>
        {shelter.latitude}, {shelter.longitude} (
        <a href={openStreetMapUrl(shelter.latitude, shelter.longitude)}>open on OpenStreetMap</a>)
      </dd>
    </dl>
  );
}

/** The account's shelters, each linked to its page, and a way to add one. */
export function ShelterListPage(props: {
  email: string;
  csrf: string;
  shelters: Shelter[];
  notices: Notice[];
}) {
  const { email, csrf, shelters, notices } = props;
  return (
    <Layout title="Your shelters" signedIn={{ email, csrf }}>
      <BackTo href={ACCOUNT_PAGE} text="Back to your account" notices={notices} />
      <p class="actions">
        <a class="button" href="/dashboard/shelters/new">
          Add a shelter
        </a>
        <a href="/dashboard/animals">Your animals</a>
      </p>
      {shelters.length === 0 ? (
        <p>You have no shelters yet. Add the place your animals live, so adopters can find them.</p>
      ) : (
        <table class="cards">
          <ColumnHeads names={["Name", "Town or city", "Email"]} />
          <tbody>
            {shelters.map((shelter) => (
              <tr>
                <td data-label="Name">
                  <a href={`/dashboard/shelters/${shelter.id}`}>{shelter.name}</a>
                </td>
                <td data-label="Town or city">
                  {shelter.address.city} ({shelter.address.country})
                </td>
                <td data-label="Email">{shelter.email}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>
  );
}

/** One shelter: its fields, its animals, and what can be done with it. */
export function ShelterPage(props: {
  email: string;
  csrf: string;
  shelter: Shelter;
  notices: Notice[];
}) {
  const { email, csrf, shelter, notices } = props;
  return (
    <Layout title={shelter.name} signedIn={{ email, csrf }}>
      <BackTo href="/dashboard/shelters" text="Back to your shelters" notices={notices} />
      <ShelterFacts shelter={shelter} />
      <div class="actions">
        <a class="button secondary" href={`/dashboard/shelters/${shelter.id}/edit`}>
          Edit
        </a>
        <a class="button secondary" href={`/dashboard/animals?shelterId=${shelter.id}`}>
          Its animals
        </a>
        <a class="button secondary danger" href={`/dashboard/shelters/${shelter.id}/delete`}>
          Delete
        </a>
      </div>
    </Layout>
  );
}

/** Asks before deleting a shelter; refused while animals live there. */
export function DeleteShelterPage(props: {
  email: string;
  csrf: string;
  shelter: Shelter;
  error: string | undefined;
}) {
  const { email, csrf, shelter, error } = props;
  return (
    <Layout title="Delete this shelter?" signedIn={{ email, csrf }}>
      <Refusal reason={error} />
      <ShelterFacts shelter={shelter} />
      <p>
        A shelter can be deleted once no animal lives there: move its animals or delete them first.
        This cannot be undone.
      </p>
      <ConfirmActions
        action={`/dashboard/shelters/${shelter.id}/delete`}
        csrf={csrf}
        etag={shelter.etag}
        confirm="Delete the shelter"
        back={`/dashboard/shelters/${shelter.id}`}
      />
    </Layout>
  );
}
