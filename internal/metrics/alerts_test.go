package metrics

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// TestAlertingRules checks docs/monitoring/alerts.yml with Debian's
// promtool: its syntax, and its alerts on the synthetic series of
// alerts_test.yml (which fire, when, with what text).
func TestAlertingRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: install Debian's prometheus package (scripts/setup.sh does)")
	}
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "alerts_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "../../docs/monitoring"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// checkDashboard wants every series the sample Grafana dashboard and the
// alerting rules query to be one the scrape holds.
func checkDashboard(t *testing.T, families map[string]*dto.MetricFamily) {
	t.Helper()
	raw, err := os.ReadFile("../../docs/monitoring/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dashboard); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	rules, err := os.ReadFile("../../docs/monitoring/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{string(rules)}
	for _, p := range dashboard.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q queries nothing", p.Title)
		}
		for _, target := range p.Targets {
			exprs = append(exprs, target.Expr)
		}
	}
	names := regexp.MustCompile(`\b(?:ipam|go_sql)_[a-z_]+`)
	for _, e := range exprs {
		for _, name := range names.FindAllString(e, -1) {
			if _, ok := families[strings.TrimSuffix(name, "_bucket")]; !ok {
				t.Errorf("the dashboard or the rules query %s, which the metrics do not hold", name)
			}
		}
	}
}
