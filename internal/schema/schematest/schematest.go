// Package schematest holds the schemas of kinds that tests of several
// packages load, written once: the example of sites and VLANs, and the
// smallest schema of sites and their VLANs. It imports nothing, so that
// the tests of internal/schema itself can use it.
package schematest

// Example is the example schema of sites and VLANs: a generic
// DcimEndpoint; LocationSite with a unique name; IpamVLAN with a name, a
// vlan_id, an optional role and tags, a required site of cardinality one,
// endpoints, and the uniqueness constraint of site and vlan_id that makes
// a merge refuse two VLANs of one number in a site (docs/numbers.md,
// "Merges can still leave duplicates").
const Example = `version: "1.0"
generics:
  - name: Endpoint
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}
      - {name: tags, kind: List, optional: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: endpoints, peer: DcimEndpoint, cardinality: many}
    uniqueness_constraints:
      - ["site", "vlan_id__value"]
`

// ExampleWithInterface is Example with a node of its generic,
// DcimInterface, which has an optional speed.
const ExampleWithInterface = Example + `  - name: Interface
    namespace: Dcim
    inherit_from: [DcimEndpoint]
    attributes:
      - {name: speed, kind: Number, optional: true}
`

// SitesAndVLANs is the smallest schema of sites and their VLANs:
// LocationSite with a unique name, IpamVLAN with a name, an optional
// vlan_id and a required site of cardinality one, each labelled by its
// name.
const SitesAndVLANs = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number, optional: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`
