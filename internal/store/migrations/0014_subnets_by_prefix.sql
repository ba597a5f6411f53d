-- A VPC's subnets in the order of their prefixes (issue 15): the subnet
-- that holds an address is the last one at or before it (siblings never
-- overlap, migration 0004), one probe of this index, where the exclusion
-- constraint's GiST index reads ever more of its entries as a VPC's
-- subnets grow (40 µs a probe among 1 000). The usage history counts each
-- hour's claims and releases of every subnet by it.
CREATE INDEX subnets_vpc_cidr ON subnets (vpc_uid, cidr);
