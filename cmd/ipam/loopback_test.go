package main

import "testing"

func TestLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		listen string
		want   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.2:0", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"0.0.0.0:8080", false},
		{":8080", false},
		{"[::]:8080", false},
		{"192.0.2.10:443", false},
		{"ipam.example:8080", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := loopback(tt.listen); got != tt.want {
			t.Errorf("loopback(%q) = %v, want %v", tt.listen, got, tt.want)
		}
	}
}
