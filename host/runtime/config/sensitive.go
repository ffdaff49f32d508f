package config

import (
	"log/slog"
)

// The values of sensitive variables never show in what zarrgw prints:
// package redact hides them. Every diagnostic the decoder returns is
// redacted once, as it is returned (decode, VerifyPlugins, VerifyStores,
// CheckDiagnostics); these hide them in everything else.

// Redact hides the values of the configuration's sensitive variables in
// text that is not a diagnostic (which are redacted as they are made): a
// report's fields, a description of a dataset, an error met while opening
// or reading it. A value is hidden where it is quoted, bare where it is
// at least 4 characters long, and where it is the whole text.
func (c *Config) Redact(text string) string {
	if c == nil {
		return text
	}
	return c.redactor.Text(text)
}

// Redacts reports whether the configuration has sensitive values to
// hide (Redact changes nothing otherwise).
func (c *Config) Redacts() bool { return c != nil && c.redactor != nil }

// RedactError is err with its message redacted (Redact); errors.Is and
// errors.As see err as it was. nil stays nil.
func (c *Config) RedactError(err error) error {
	if c == nil {
		return err
	}
	return c.redactor.Error(err)
}

// RedactLogger is logger with the values of the sensitive variables
// hidden in every message and string attribute (Redact): the errors a
// command or the gateway logs quote stores' roots and endpoints, which
// may come from such variables. Without sensitive variables it is logger.
func (c *Config) RedactLogger(logger *slog.Logger) *slog.Logger {
	if c == nil {
		return logger
	}
	return c.redactor.Logger(logger)
}
