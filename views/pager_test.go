package views

import (
	"fmt"
	"testing"
)

func TestPageNumbers(t *testing.T) {
	for _, tt := range []struct {
		current, pages int
		want           string
	}{
		{1, 1, "[1]"},
		{1, 2, "[1 2]"},
		{1, 3, "[1 2 3]"},
		{1, 20000, "[1 2 3 0 20000]"},
		{5, 20000, "[1 2 3 4 5 6 7 0 20000]"},
		{6, 20000, "[1 0 4 5 6 7 8 0 20000]"},
		{10000, 20000, "[1 0 9998 9999 10000 10001 10002 0 20000]"},
		{20000, 20000, "[1 0 19998 19999 20000]"},
		{19996, 20000, "[1 0 19994 19995 19996 19997 19998 19999 20000]"},
		{9, 3, "[1 2 3]"},
		{0, 7, "[1 2 3 0 7]"},
	} {
		if got := fmt.Sprint(PageNumbers(tt.current, tt.pages)); got != tt.want {
			t.Errorf("PageNumbers(%d, %d) = %s, want %s", tt.current, tt.pages, got, tt.want)
		}
	}
}
