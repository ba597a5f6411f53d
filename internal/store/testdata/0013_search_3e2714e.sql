-- The global search (issue 15): who holds an address, found by the
-- owner's name (a VM's hostname, a floating IP's name), its uid or its
-- namespace, on a million allocations. Every index of allocations is
-- written by every claim, so this adds two and widens one, no more
-- (docs/benchmarks.md measures the claims before and after):
--
-- the owner's name, lower-cased, in the "C" collation whatever the
-- database's, so that a prefix (LIKE 'web%') is a range of the index and
-- a hostname ("web" holds "web/0", "web/1") is one too;
CREATE INDEX allocations_owner_name_lower ON allocations ((lower(owner_name)) COLLATE "C");
-- the owner's uid (a VM's, a floating IP's, a VPC's for its uplink), which
-- renaming a VM reads too;
CREATE INDEX allocations_owner_uid ON allocations (owner_uid);
-- and the owner's namespace with the owner's name, in place of the
-- namespace alone: the same lookups, a namespace's addresses in the order
-- of their owners' names, the first of them read without reading all,
-- and a tenant's owners found by name without reading the owners of the
-- same name in other namespaces.
CREATE INDEX allocations_owner_namespace_name ON allocations (owner_namespace, (lower(owner_name)) COLLATE "C");
DROP INDEX allocations_owner_namespace;
