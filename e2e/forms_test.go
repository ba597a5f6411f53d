package e2e

import (
	"context"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// TestPredictedRefusalDisablesTheButton: on the VPC page, choosing a full
// subnet in the attach form disables Attach and says why, beside the
// prediction and at the subnet's field, in plain words; choosing a subnet
// with room enables it again and clears both.
func TestPredictedRefusalDisablesTheButton(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	ctx := context.Background()
	db, err := store.Open(ctx, srv.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: srv.DatabaseURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	// A /30 holds one address besides its gateway: full once attached.
	if _, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "tiny", CIDR: "10.42.9.0/30"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "tiny",
		VM: ipam.VMRef{UID: "vm-tiny", Hostname: "tiny-01"}}); err != nil {
		t.Fatal(err)
	}
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)
	goTo(t, page, srv.URL, "/vpcs/acme/prod/main")
	form := page.Locator("[data-testid=form-attach-interface][data-ready=true]")
	if err := form.WaitFor(); err != nil {
		t.Fatalf("the attach form's prediction does not start: %v", err)
	}
	choose := func(subnet string) {
		t.Helper()
		if _, err := page.Locator("#attach-subnet").SelectOption(playwright.SelectOptionValues{Values: &[]string{subnet}}); err != nil {
			t.Fatal(err)
		}
	}
	expect := playwright.NewPlaywrightAssertions(patience)
	why := "Pool vpc-main has no free address in 10.42.9.0/30"

	choose("tiny")
	if err := expect.Locator(form.Locator("[data-testid=prediction-error]")).ToHaveText(why); err != nil {
		t.Errorf("a full subnet is predicted as %v, want %q", err, why)
	}
	if err := expect.Locator(form.Locator("[data-testid=submit-attach-interface]")).ToBeDisabled(); err != nil {
		t.Errorf("Attach is enabled in a full subnet: %v", err)
	}
	if err := expect.Locator(form.Locator("[data-testid=error-subnet]")).ToHaveText(why); err != nil {
		t.Errorf("the subnet's field does not say why: %v", err)
	}
	checkMarked(t, page, "#attach-subnet", "attach-subnet-error")
	checkAccessibility(t, page, "the attach form, refused as predicted")

	choose("web")
	if err := expect.Locator(form.Locator("[data-testid=submit-attach-interface]")).ToBeEnabled(); err != nil {
		t.Errorf("Attach stays disabled in a subnet with room: %v", err)
	}
	if err := expect.Locator(form.Locator("[data-testid=prediction-error]")).ToHaveText(""); err != nil {
		t.Errorf("the prediction still refuses: %v", err)
	}
	checkMarked(t, page, "#attach-subnet", "")
}
