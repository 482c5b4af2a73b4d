-- Who made a review decision when it was not a person at `gwrun view`: "agent" for one made
-- through `gwrun mcp`. NULL: a person.
ALTER TABLE reviews ADD COLUMN reviewer TEXT;
