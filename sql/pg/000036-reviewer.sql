-- Who made a review decision when it was not a person at `gwrun view`, as SQLite keeps it
-- (sql/000019): "agent" for one made through `gwrun mcp`. NULL: a person.
ALTER TABLE reviews ADD COLUMN reviewer text;
