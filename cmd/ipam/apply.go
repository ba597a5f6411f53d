package main

import (
	"errors"
	"io"
	"log/slog"
)

func apply(_ []string, _ io.Reader, _ io.Writer, _ *slog.Logger) error {
	return errors.New("placeholder: being written")
}
