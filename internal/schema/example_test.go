package schema_test

import (
	"fmt"

	"pivirt.hu/ipam/internal/schema"
)

func Example() {
	file, err := schema.Parse("vlans.yaml", []byte(`version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: vlan_id, kind: Number}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
    uniqueness_constraints:
      - [site, vlan_id__value]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	n := 0
	newID := func() string { n++; return fmt.Sprintf("id-%d", n) }
	s, changes, err := schema.Schema{}.Apply(newID, file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(changes)

	// Renamed by its id, vlan_id keeps it, and the constraint follows.
	rename, _ := schema.Parse("rename.yaml", []byte(`version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{id: id-4, name: vid, kind: Number}]}
`))
	s, changes, err = s.Apply(newID, rename)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(changes)
	vlan, _ := s.Kind("IpamVLAN")
	fmt.Println(vlan.UniquenessConstraints)
	fmt.Printf("%s", s.YAML())

	_, err = schema.Parse("vlans.yaml", []byte(`version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{name: vlan_id, kind: Numbr}]}
`))
	fmt.Println(err)
	// Output:
	// added node LocationSite (id id-1)
	// added attribute LocationSite.name (id id-2)
	// added node IpamVLAN (id id-3)
	// added attribute IpamVLAN.vlan_id (id id-4)
	// added relationship IpamVLAN.site (id id-5)
	// changed attribute IpamVLAN.vid (id id-4): name vlan_id → vid
	// [[site vid__value]]
	// version: "1.0"
	// nodes:
	//   - id: id-1
	//     name: Site
	//     namespace: Location
	//     attributes:
	//       - {id: id-2, name: name, kind: Text, unique: true}
	//   - id: id-3
	//     name: VLAN
	//     namespace: Ipam
	//     attributes:
	//       - {id: id-4, name: vid, kind: Number}
	//     relationships:
	//       - {id: id-5, name: site, peer: LocationSite, cardinality: one, optional: false}
	//     uniqueness_constraints:
	//       - [site, vid__value]
	// vlans.yaml: IpamVLAN.vlan_id: kind "Numbr" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any
}
