-- settings holds instance-wide settings, such as whether the demo data was loaded.
CREATE TABLE settings (
    name text PRIMARY KEY,
    value jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
