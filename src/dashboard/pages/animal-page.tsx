import { PHOTO_TYPES } from "../../db/photos-table.ts";
import type { Pet } from "../../pets/pets.schemas.ts";
import { MAX_PHOTOS, type Photo } from "../../photos/photos.schemas.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { FORM_KEY_FIELD } from "../form-keys.ts";
import type { Notice } from "../notices.ts";
import { STATUS_NAMES } from "./animal-form-page.tsx";
import { ProfileFacts } from "./animal-profile.tsx";
import { ConfirmActions, describedBy, FieldError, Refusal } from "./form-fields.tsx";
import { formatUtc } from "./format.ts";
import { Layout } from "./layout.tsx";
import { BackTo } from "./notice-view.tsx";

/** What the animal page shows of the animal. */
export interface AnimalView {
  pet: Pet;
  /** Its category's name, when it is one of those listed. */
  categoryName: string | undefined;
  /** Its shelter's name, when it has one. */
  shelterName: string | undefined;
  /** Its placed order, which owns its status while it stands. */
  placedOrder: number | null;
}

/** The animal's fields as a person reads them. */
function AnimalFacts({ animal }: { animal: AnimalView }) {
  const { pet, categoryName, shelterName, placedOrder } = animal;
  return (
    <dl class="facts">
      <dt>Name</dt>
      <dd data-testid="animal-name">{pet.name}</dd>
      <dt>Category</dt>
      <dd>{categoryName ?? `Category ${pet.categoryId}`}</dd>
      <dt>Status</dt>
      <dd data-testid="animal-status">{STATUS_NAMES[pet.status]}</dd>
      <ProfileFacts pet={pet} shelterName={shelterName} />
      <dt>Open order</dt>
      <dd data-testid="open-order">
        {placedOrder === null
          ? "None"
          : `Order ${placedOrder} is placed: the animal's status stays as the order set it until the order is completed or cancelled.`}
      </dd>
      <dt>Identifier</dt>
      <dd>
        {pet.id} (version <code>{pet.etag}</code>)
      </dd>
    </dl>
  );
}

interface PhotosProps {
  id: number;
  /** The animal's name, which the thumbnails' text alternatives give. */
  name: string;
  csrf: string;
  photos: Photo[];
  formKey: string;
  /** Why the last upload was refused, when it was. */
  uploadError: string | undefined;
}

/** The animal's photos as thumbnails from their public addresses, each removable, and the upload form. */
function Photos({ id, name, csrf, photos, formKey, uploadError }: PhotosProps) {
  return (
    <section aria-labelledby="photos-heading">
      <h2 id="photos-heading">Photos</h2>
      {photos.length === 0 ? (
        <p>No photos yet. Adopters look at photos first: add one.</p>
      ) : (
        <ul class="thumbs">
          {photos.map((photo, index) => (
            <li>
              <figure>
                <a href={photo.url}>
                  <img
                    src={photo.url}
                    alt={`${name}, ${index + 1} of ${photos.length}`}
                    loading="lazy"
                  />
                </a>
                <figcaption>
                  <a href={`/dashboard/animals/${id}/photos/${photo.id}/delete`}>
                    Remove photo {index + 1}
                  </a>
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      )}
      {photos.length < MAX_PHOTOS ? (
        <form
          method="post"
          action={`/dashboard/animals/${id}/photos`}
          enctype="multipart/form-data"
          class="stacked"
        >
          <input type="hidden" name={CSRF_FIELD} value={csrf} />
          <input type="hidden" name={FORM_KEY_FIELD} value={formKey} />
          <div>
            <label for="photo">Add a photo</label>
            <p class="hint" id="photo-hint">
              A JPEG, PNG or WebP file of at most 5 MiB, such as one from a phone's camera; at most{" "}
              {MAX_PHOTOS} photos an animal.
            </p>
            <FieldError id="photo-error" errors={uploadError ? [uploadError] : undefined} />
            <input
              id="photo"
              name="photo"
              type="file"
              accept={PHOTO_TYPES.join(",")}
              required
              autofocus={uploadError !== undefined}
              aria-invalid={uploadError ? "true" : undefined}
              aria-describedby={describedBy("photo-hint", uploadError && "photo-error")}
            />
          </div>
          <button type="submit">Upload the photo</button>
        </form>
      ) : (
        <p>This animal has {MAX_PHOTOS} photos, the most it may have: remove one to add another.</p>
      )}
    </section>
  );
}

interface AnimalPageProps extends Omit<PhotosProps, "id" | "name"> {
  email: string;
  animal: AnimalView;
  notices: Notice[];
}

/** One animal: its fields, its open order, its photos, and what can be done with it. */
export function AnimalPage(props: AnimalPageProps) {
  const { email, csrf, animal, notices, ...photos } = props;
  const id = animal.pet.id;
  return (
    <Layout title={animal.pet.name} signedIn={{ email, csrf }}>
      <BackTo href="/dashboard/animals" text="Back to your animals" notices={notices} />
      <AnimalFacts animal={animal} />
      <div class="actions">
        <a class="button secondary" href={`/dashboard/animals/${id}/edit`}>
          Edit
        </a>
        <a class="button secondary danger" href={`/dashboard/animals/${id}/delete`}>
          Delete
        </a>
      </div>
      <Photos id={id} name={animal.pet.name} csrf={csrf} {...photos} />
    </Layout>
  );
}

/** Asks before deleting an animal, which cannot be undone. */
export function DeleteAnimalPage(props: {
  email: string;
  csrf: string;
  animal: AnimalView;
  /** Why the last attempt was refused, when it was. */
  error: string | undefined;
}) {
  const { email, csrf, animal, error } = props;
  const id = animal.pet.id;
  return (
    <Layout title="Delete this animal?" signedIn={{ email, csrf }}>
      <Refusal reason={error} />
      <AnimalFacts animal={animal} />
      <p>
        It is no longer shown to adopters and cannot be ordered; its photos are deleted with it.
        This cannot be undone.
      </p>
      <ConfirmActions
        action={`/dashboard/animals/${id}/delete`}
        csrf={csrf}
        etag={animal.pet.etag}
        confirm="Delete the animal"
        back={`/dashboard/animals/${id}`}
      />
    </Layout>
  );
}

/** Asks before removing a photo. */
export function RemovePhotoPage(props: { email: string; csrf: string; pet: Pet; photo: Photo }) {
  const { email, csrf, pet, photo } = props;
  const petId = pet.id;
  return (
    <Layout title="Remove this photo?" signedIn={{ email, csrf }}>
      <img class="preview" src={photo.url} alt={`${pet.name}, as this one shows it`} width={240} />
      <p>
        Added {formatUtc(new Date(photo.createdAt))}. Removed, it is no longer shown with the
        animal; browsers that kept a copy may still show theirs for a while.
      </p>
      <ConfirmActions
        action={`/dashboard/animals/${petId}/photos/${photo.id}/delete`}
        csrf={csrf}
        confirm="Remove the photo"
        back={`/dashboard/animals/${petId}`}
      />
    </Layout>
  );
}
