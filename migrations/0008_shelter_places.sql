-- Written by hand: drizzle-kit cannot express an R*Tree. Each live shelter's place, as a box of
-- one point, under the shelter's id: what `near` asks for candidates. The module stores 32-bit
-- floats, rounding each box outward, so a box only selects candidates and every distance is
-- computed from the shelters' own coordinates. Each shelter's change writes its place in its own
-- batch; the shelters that exist already are placed here.
CREATE VIRTUAL TABLE `shelter_places` USING rtree(id, min_lat, max_lat, min_lon, max_lon);
--> statement-breakpoint
INSERT INTO `shelter_places` (id, min_lat, max_lat, min_lon, max_lon)
SELECT id, latitude, latitude, longitude, longitude FROM shelters WHERE deleted_at IS NULL;
