package store

import (
	"context"
	"fmt"
)

// InsertSetting records the instance-wide setting name with value unless
// it is recorded already, and reports whether it recorded it.
func InsertSetting(ctx context.Context, ext Ext, name string, value RawJSON) (bool, error) {
	res, err := ext.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING`, name, value)
	if err != nil {
		return false, fmt.Errorf("store: unable to record the setting %s: %w", name, classify(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: unable to record the setting %s: %w", name, classify(err))
	}
	return n == 1, nil
}
