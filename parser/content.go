package parser

import (
	"bytes"
	"unicode/utf8"
)

// CheckText refuses content that is not text: a NUL byte (named at its line) or invalid UTF-8.
// what says what the file was expected to be ("a Terraform file").
func CheckText(name string, data []byte, what string) *Error {
	i := bytes.IndexByte(data, 0)
	if i < 0 && utf8.Valid(data) {
		return nil
	}
	line := 1
	if i >= 0 {
		line += bytes.Count(data[:i], []byte{'\n'})
	}
	return &Error{File: name, Line: line, Message: "binary or non-UTF-8 content: not " + what}
}
