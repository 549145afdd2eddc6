import type { Category } from "../../categories/categories.schemas.ts";
import type { Pet } from "../../pets/pets.schemas.ts";
import type { Shelter } from "../../shelters/shelters.schemas.ts";
import type { Notice } from "../notices.ts";
import { AnimalFinders } from "./animal-finders.tsx";
import { STATUS_NAMES } from "./animal-form-page.tsx";
import { ACCOUNT_PAGE, ColumnHeads, Layout } from "./layout.tsx";
import { BackTo } from "./notice-view.tsx";

interface AnimalListPageProps {
  email: string;
  csrf: string;
  /** The finders as the address gave them (empty ones left out). */
  finders: Record<string, string[]>;
  categories: Category[];
  shelters: Shelter[];
  /** The page found; undefined when the finders were refused. */
  page: { animals: Pet[]; next: string | undefined; first: boolean } | undefined;
  error?: string;
  notices: Notice[];
}

/** The next page's address: the same finders, and the cursor. */
function nextAddress(finders: Record<string, string[]>, cursor: string): string {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(finders)) {
    for (const value of values) query.append(name, value);
  }
  query.set("cursor", cursor);
  return `/dashboard/animals?${query}`;
}

function AnimalTable({ animals, categories }: { animals: Pet[]; categories: Category[] }) {
  const names = new Map(categories.map((category) => [category.id, category.name]));
  return (
    <table class="cards">
      <ColumnHeads names={["Name", "Category", "Status", "Photos"]} />
      <tbody>
        {animals.map((pet) => (
          <tr>
            <td data-label="Name">
              <a href={`/dashboard/animals/${pet.id}`}>{pet.name}</a>
            </td>
            <td data-label="Category">
              {names.get(pet.categoryId) ?? `Category ${pet.categoryId}`}
            </td>
            <td data-label="Status">{STATUS_NAMES[pet.status]}</td>
            <td data-label="Photos">{pet.photoUrls.length}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The account's animals, newest first, found by the API's finders and paged by its cursor. */
export function AnimalListPage(props: AnimalListPageProps) {
  const { email, csrf, finders, categories, shelters, page, error, notices } = props;
  const filtered = Object.keys(finders).length > 0;
  return (
    <Layout title="Your animals" signedIn={{ email, csrf }}>
      <BackTo href={ACCOUNT_PAGE} text="Back to your account" notices={notices} />
      <p class="actions">
        <a class="button" href="/dashboard/animals/new">
          Add an animal
        </a>
        <a href="/dashboard/shelters">Your shelters</a>
      </p>
      <AnimalFinders finders={finders} categories={categories} shelters={shelters} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {page && (
        <>
          <h2>{filtered ? "Animals found" : "All your animals"}</h2>
          {page.animals.length === 0 ? (
            <p>
              {filtered
                ? "None of your animals on this page matches. Change the filters, or go on to the next page if there is one."
                : "You have no animals yet."}
            </p>
          ) : (
            <AnimalTable animals={page.animals} categories={categories} />
          )}
          {(page.next || !page.first) && (
            <nav class="actions pages" aria-label="Pages of animals">
              {!page.first && <a href="/dashboard/animals">First page</a>}
              {page.next && <a href={nextAddress(finders, page.next)}>Next page</a>}
            </nav>
          )}
        </>
      )}
    </Layout>
  );
}
