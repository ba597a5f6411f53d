package graphql

import (
	"strings"

	"pivirt.hu/ipam/internal/schema"
)

// The descriptions of the types generated from a schema of kinds, which
// GraphiQL's documentation and introspecting tools show.

func kindDescription(k schema.Kind) string {
	d := "An object of the node " + k.FullName() + "."
	if len(k.InheritFrom) > 0 {
		d += " It inherits from " + strings.Join(k.InheritFrom, ", ") + "."
	}
	return d
}

func labelDescription(k schema.Kind) string {
	if k.DisplayLabel != "" {
		return "The object's label: " + k.DisplayLabel + ", filled in with its values."
	}
	return "The object's label: the value of its attribute name, else its id."
}

func attributeDescription(a schema.Attribute) string {
	parts := []string{"A " + string(a.Kind) + " attribute"}
	if a.Optional {
		parts = append(parts, "optional")
	} else {
		parts = append(parts, "required")
	}
	if a.Unique {
		parts = append(parts, "unique")
	}
	if len(a.Choices) > 0 {
		parts = append(parts, "one of "+strings.Join(a.Choices, ", "))
	}
	if a.DefaultValue != "" {
		parts = append(parts, "default "+a.DefaultValue)
	}
	return strings.Join(parts, "; ") + "."
}

func relationshipDescription(r schema.Relationship) string {
	d := "A relationship to " + r.Peer + ", of cardinality " + string(r.Cardinality)
	if r.Optional {
		return d + ", optional."
	}
	return d + ", required."
}

func inputDescription(kind, op string) string {
	if op == "Create" {
		return "The values of a new " + kind + ": an attribute as {value}, a relationship as {id} (cardinality one) or [{id}] (many). Every required element without a default value must be given."
	}
	return "The changes of an object of " + kind + ": what is given changes, the rest stays as it is."
}

func answerDescription(kind, op string) string {
	return "The answer of " + kind + op + "."
}

func answerObjectDescription(op string) string {
	switch op {
	case "Create":
		return "The object created."
	case "Update":
		return "The object as it is now."
	}
	return "The object as it was before it was deleted."
}
