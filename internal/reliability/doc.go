// Package reliability holds the tests that prove what PiVirt IPAM promises
// when things go wrong: no address is handed out twice, a confirmed claim is
// never lost, a refused request stores nothing, a database that cannot
// answer gives a clear, retryable error and never a hang.
//
// They run the real ipam binary, built once by TestMain, against a real
// PostgreSQL: a fresh database of the package's pgtest cluster where the
// server only needs to run, and a cluster of the test's own (pgembed) where
// the test restarts it, limits its connections or times its statements out.
// Every request goes to 127.0.0.1.
//
//   - TestPostgresRestart restarts PostgreSQL under a load of claims.
//   - TestKillServe kills one of two ipam serve processes under load.
//   - TestConnectionLimit, TestStatementTimeout and TestDiskFull make the
//     database refuse claims in the ways it does when short of connections,
//     time or disk.
//   - TestGracefulShutdown sends SIGTERM during a claim.
//   - TestFailover stops a primary hard under claims and releases, promotes
//     its standby and re-points HAProxy: with a synchronous standby nothing
//     confirmed is lost; with an asynchronous one, what it lagged is.
//   - TestLoad runs mixed traffic through three ipam serve processes for
//     60 seconds; with IPAM_SOAK set to a duration (make soak: 10m) it runs
//     that long and checks that memory and connections stay flat.
//
// docs/reliability.md says what each test proves and the figures of the
// last run.
package reliability
