-- Written by hand: drizzle-kit cannot express an R*Tree. The places' R*Tree made again with two
-- auxiliary columns, each live shelter's own latitude and longitude as the shelters' table holds
-- them (auxiliary columns keep their values exactly, unlike the box's 32-bit floats), so a listing
-- near a place computes every candidate's distance from the index alone, without reading the
-- shelter. Each shelter's change writes them in its own batch, beside the box.
CREATE VIRTUAL TABLE `shelter_places_exact` USING rtree(id, min_lat, max_lat, min_lon, max_lon, +latitude, +longitude);
--> statement-breakpoint
INSERT INTO `shelter_places_exact` (id, min_lat, max_lat, min_lon, max_lon, latitude, longitude)
SELECT id, latitude, latitude, longitude, longitude, latitude, longitude FROM shelters WHERE deleted_at IS NULL;
--> statement-breakpoint
DROP TABLE `shelter_places`;
--> statement-breakpoint
ALTER TABLE `shelter_places_exact` RENAME TO `shelter_places`;
