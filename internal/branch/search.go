package branch

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// What a search matched in an object, besides an attribute (named by its
// name).
const (
	MatchLabel = "display label"
	MatchID    = "id"
)

// A Found is an object a search found on a branch.
type Found struct {
	Object Object
	// Own says that the version found is the branch's own; else it is
	// main's (on another branch, main's at the branch point).
	Own bool
	// Seq is the change that wrote the version found: main's version seen
	// from a branch is main's live one when they have the same Seq.
	Seq int64
	// Match is what matched: MatchLabel, MatchID, or the name of the Text
	// or Number attribute whose value did; Value is what it holds, as
	// text. Attribute is that attribute's stable id ("" for the label and
	// the id).
	Match, Value, Attribute string
	// Number says that Match is a Number attribute, whose value is the
	// query.
	Number bool
	// KindID is the stable id of the object's node kind.
	KindID string
	// Data holds the object's values by the stable id of their element,
	// canonical (store.ObjectRow.Data): what a number pool reads a
	// division from.
	Data map[string]json.RawMessage
	// Rank orders the hits, of one search or of several (on main and on
	// a branch): the lower the better (see SearchObjects).
	Rank int
}

// minContains is the shortest run of ASCII letters and digits a query
// needs to be looked for inside values: the trigram index of
// object_versions.search (migration 0024) finds nothing to look up in a
// shorter one, and would read all of itself.
const minContains = 3

// SearchObjects finds, among the objects the branch shows, those that
// text names: by the display label or the value of a Text attribute that
// holds it (case ignored), the whole value first; by the value of a Number
// attribute equal to it (a whole number); by the id. Better matches come
// first: the whole label, a Number, the id, the label's start, a whole
// value, a part of the label, a value's start, a part of a value; then by
// label. It returns limit objects at most (1 to MaxPage) and whether more
// matched, of those looked at: a part of a value is looked for only when
// text holds three ASCII letters or digits in a row, and the whole values
// looked up are those of the labels that show one attribute's value alone
// (a label written with text around its values, "VLAN {{ vlan_id__value
// }}", is found by a part of its values). Operators only: tenants find
// nothing. One statement.
func (s *Service) SearchObjects(ctx context.Context, actor auth.Actor, branch, text string, limit int) ([]Found, bool, error) {
	if !actor.IsOperator() {
		return nil, false, nil
	}
	if limit < 1 || limit > MaxPage {
		return nil, false, invalid("limit", "limit must be from 1 to %d, got %d", MaxPage, limit)
	}
	st, err := s.state(ctx, branch)
	if err != nil {
		return nil, false, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, false, nil
	}
	c := st.schema
	q := store.ObjectSearch{Kinds: c.kindIDList(), Limit: limit + 1}
	number, isNumber := parseNumber(text)
	q.Equal = c.searchDocs(text, number, isNumber)
	if id, ok := parseObjectID(text); ok {
		q.ID = id
	}
	if LooksInside(text) {
		q.Contains, q.Attributes = text, c.searchAttributes()
	}
	if len(q.Kinds) == 0 {
		return nil, false, nil
	}
	rows, err := store.SearchObjects(ctx, s.db, st.row.View(), q)
	if err != nil {
		return nil, false, err
	}
	m := matcher{text: text, lower: strings.ToLower(text), number: number, isNumber: isNumber}
	found := make([]Found, 0, len(rows))
	for _, r := range rows {
		n, ok := c.byID[r.Kind]
		if !ok {
			continue
		}
		f, ok := m.match(n, r.ObjectRow)
		if !ok {
			continue
		}
		f.Own = r.BranchID == st.row.ID
		found = append(found, f)
	}
	slices.SortStableFunc(found, CompareFound)
	more := len(found) > limit
	if more {
		found = found[:limit]
	}
	return found, more, nil
}

// LooksInside reports whether SearchObjects looks for text inside values
// (and not only for whole values): when it holds three ASCII letters or
// digits in a row.
func LooksInside(text string) bool { return asciiRun(text) >= minContains }

// CompareFound orders what a search found, the best first: by rank, then
// by label (case ignored), kind and id.
func CompareFound(a, b Found) int {
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), strings.Compare(strings.ToLower(a.Object.DisplayLabel), strings.ToLower(b.Object.DisplayLabel)),
		strings.Compare(a.Object.Kind, b.Object.Kind), strings.Compare(a.Object.ID, b.Object.ID))
}

// parseNumber reads text as a Number attribute's value.
func parseNumber(text string) (int64, bool) {
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// asciiRun is the length of the longest run of ASCII letters and digits
// in s.
func asciiRun(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// kindIDList returns the ids of the schema's node kinds, in order.
func (c *compiled) kindIDList() []string {
	ids := make([]string, 0, len(c.byID))
	for id := range c.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// searchAttributes returns the ids of the attributes a part of a query is
// looked for in: every Text attribute, and those a label shows.
func (c *compiled) searchAttributes() []string {
	seen := map[string]bool{}
	var ids []string
	for _, id := range c.kindIDList() {
		n := c.byID[id]
		for _, a := range n.attributes {
			if (a.Kind == schema.Text || slices.Contains(n.labelAttributes(), a.ID)) && !seen[a.ID] {
				seen[a.ID] = true
				ids = append(ids, a.ID)
			}
		}
	}
	return ids
}

// searchDocs returns the documents an object holds when the whole of its
// label is text (the label showing one attribute's value alone), or a
// Number attribute's value is number (when isNumber).
func (c *compiled) searchDocs(text string, number int64, isNumber bool) []map[string]json.RawMessage {
	var docs []map[string]json.RawMessage
	seen := map[string]bool{}
	add := func(id string, v any) {
		raw, err := json.Marshal(v)
		key := id + string(raw)
		if err != nil || seen[key] {
			return
		}
		seen[key] = true
		docs = append(docs, map[string]json.RawMessage{id: raw})
	}
	for _, id := range c.kindIDList() {
		n := c.byID[id]
		if a, ok := n.wholeLabel(); ok && (a.Kind == schema.Text || a.Kind == schema.Dropdown) {
			add(a.ID, text)
			add(a.ID, strings.ToLower(text))
		}
		if !isNumber {
			continue
		}
		for _, a := range n.attributes {
			if a.Kind == schema.Number {
				add(a.ID, number)
			}
		}
	}
	return docs
}

// labelAttributes returns the ids of the attributes whose values the
// node's label shows: its template's, else its name attribute.
func (n *nodeKind) labelAttributes() []string {
	var ids []string
	for _, p := range n.label {
		if p.attribute != "" {
			ids = append(ids, p.attribute)
		}
	}
	if len(n.label) == 0 {
		if a, ok := n.attrByName["name"]; ok {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// wholeLabel returns the attribute whose value is the node's whole label,
// when there is one.
func (n *nodeKind) wholeLabel() (schema.Attribute, bool) {
	switch {
	case len(n.label) == 1 && n.label[0].attribute != "":
		a, ok := n.attrByID[n.label[0].attribute]
		return a, ok
	case len(n.label) == 0:
		a, ok := n.attrByName["name"]
		return a, ok
	}
	return schema.Attribute{}, false
}

// A matcher says what of an object a query matches.
type matcher struct {
	text, lower string
	number      int64
	isNumber    bool
}

// The ranks of matches, the best first.
const (
	rankWholeLabel = iota
	rankNumber
	rankID
	rankLabelStart
	rankWholeValue
	rankInLabel
	rankValueStart
	rankInValue
	rankNone
)

// rankOf ranks value as a label or a Text value holding the query: whole,
// at its start, or inside; rankNone when it does not hold it.
func (m matcher) rankOf(value string, whole, start, inside int) int {
	v := strings.ToLower(value)
	switch {
	case v == m.lower:
		return whole
	case strings.HasPrefix(v, m.lower):
		return start
	case strings.Contains(v, m.lower):
		return inside
	}
	return rankNone
}

// match returns what of the object of row (of the node n) the query
// matches best; false when nothing does.
func (m matcher) match(n *nodeKind, row store.ObjectRow) (Found, bool) {
	o := n.object(row.ID, row.Data)
	f := Found{Object: o, Seq: row.FromSeq, KindID: n.kind.ID, Data: row.Data, Rank: rankNone}
	better := func(rank int, match, value, attribute string) {
		if rank < f.Rank {
			f.Rank, f.Match, f.Value, f.Attribute, f.Number = rank, match, value, attribute, rank == rankNumber
		}
	}
	better(m.rankOf(o.DisplayLabel, rankWholeLabel, rankLabelStart, rankInLabel), MatchLabel, o.DisplayLabel, "")
	if o.ID == strings.ToLower(m.text) {
		better(rankID, MatchID, o.ID, "")
	}
	for _, a := range n.attributes {
		raw, ok := row.Data[a.ID]
		if !ok {
			continue
		}
		switch a.Kind {
		case schema.Text:
			if s, ok := decodeAttribute(a, raw).(string); ok {
				better(m.rankOf(s, rankWholeValue, rankValueStart, rankInValue), a.Name, s, a.ID)
			}
		case schema.Number:
			if v, ok := decodeAttribute(a, raw).(int64); ok && m.isNumber && v == m.number {
				better(rankNumber, a.Name, strconv.FormatInt(v, 10), a.ID)
			}
		}
	}
	return f, f.Rank != rankNone
}
