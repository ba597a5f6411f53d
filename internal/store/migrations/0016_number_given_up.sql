-- A number an identifier gives up for another (an update with value: null
-- and from_pool) stays allocated while an object holds it: its allocation
-- is marked given_up instead of deleted, so that the identifier may take
-- another number in the division while this one's row still decides every
-- claim of it (docs/numbers.md, "Why no number is handed out twice"). Rows
-- are deleted by the release that finds no holding of the number left.
ALTER TABLE number_allocations ADD COLUMN given_up boolean NOT NULL DEFAULT false;
-- One number per identifier and division, among those it has not given up.
ALTER TABLE number_allocations DROP CONSTRAINT number_allocations_pool_id_division_identifier_key;
CREATE UNIQUE INDEX number_allocations_identifier ON number_allocations (pool_id, division, identifier) WHERE NOT given_up;
