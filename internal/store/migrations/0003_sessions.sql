-- sessions are the console's sign-ins, stored by scs's postgresstore in the
-- table its documentation gives. The token is stored hashed.
CREATE TABLE sessions (
    token text PRIMARY KEY,
    data bytea NOT NULL,
    expiry timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- login_attempts are the sign-ins that count against the rate limit: one row
-- per attempt, deleted when it succeeds, so that the rows of the last
-- minutes are the failures. Every ipam serve process reads the same rows.
-- client is the address the attempt came from (an IPv6 client's /64).
CREATE TABLE login_attempts (
    id bigserial PRIMARY KEY,
    user_name text NOT NULL,
    client text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_attempts_user_name ON login_attempts (user_name, at);
CREATE INDEX login_attempts_client ON login_attempts (client, at);
CREATE INDEX login_attempts_at ON login_attempts (at);
