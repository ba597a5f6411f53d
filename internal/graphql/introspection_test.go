package graphql

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// introspectionOptions are the options of graphql-js's
// getIntrospectionQuery that testdata/introspection.graphql was written
// with: every one on (typeDepth at its default, 9).
const introspectionOptions = `{descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true,
	schemaDescription: true, inputValueDeprecation: true, oneOf: true}`

// graphqlJS runs script in node with graphql-js (GRAPHQL_JS_PATH, which
// scripts/setup.sh installs) as graphql, and stdin as its input.
func graphqlJS(t *testing.T, script string, stdin []byte) string {
	t.Helper()
	path := os.Getenv("GRAPHQL_JS_PATH")
	if path == "" {
		t.Fatal(`GRAPHQL_JS_PATH is not set: run the tests with make test, or eval "$(scripts/setup.sh --print-env)" first`)
	}
	cmd := exec.CommandContext(t.Context(), "node", "-e", "const graphql = require(process.env.GRAPHQL_JS_PATH);\n"+script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// TestIntrospectionOfTools sends the introspection query that graphql-js
// 16's getIntrospectionQuery writes with every option on, as GraphiQL,
// Postman, Insomnia and graphql-codegen send it, and builds a client
// schema of the answer with graphql-js's buildClientSchema, as they do.
func TestIntrospectionOfTools(t *testing.T) {
	query, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	if written := graphqlJS(t, "process.stdout.write(graphql.getIntrospectionQuery("+introspectionOptions+"))", nil); written != string(query) {
		t.Fatalf("testdata/introspection.graphql is not what graphql-js's getIntrospectionQuery writes:\n%s", written)
	}
	e := newEnv(t)
	e.seed()
	for _, token := range []string{"acme", "op"} {
		res := e.query(token, string(query))
		if len(res.Errors) > 0 {
			t.Fatalf("the introspection query of GraphQL tools answered errors: %s", res.body)
		}
		got := graphqlJS(t, `
			const answer = JSON.parse(require('fs').readFileSync(0, 'utf8'));
			const schema = graphql.buildClientSchema(answer.data);
			const errors = graphql.validateSchema(schema);
			if (errors.length > 0) throw new Error(errors.map(String).join('\n'));
			const sdl = graphql.printSchema(schema);
			process.stdout.write([schema.getQueryType().name, schema.getMutationType().name,
				Object.keys(schema.getTypeMap()).length, sdl.includes('previewAllocation(')].join(' '));
		`, res.body)
		var data struct {
			Schema struct{ Types []json.RawMessage } `json:"__schema"`
		}
		if err := json.Unmarshal(res.Data, &data); err != nil {
			t.Fatal(err)
		}
		if want := strings.Join([]string{"Query", "Mutation", strconv.Itoa(len(data.Schema.Types)), "true"}, " "); got != want {
			t.Errorf("graphql-js built a client schema of %q, want %q", got, want)
		}
	}
}
