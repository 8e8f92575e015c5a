// Command porcupine-check decodes a Porcupine export of jobcheck (history.porcupine.json) the way
// an importer would: straight into a slice of a struct with exactly the fields of Porcupine's
// Operation (github.com/anishathalye/porcupine, model.go), unknown fields refused. It then checks
// that every key is spelled exactly as the field it fills (encoding/json would also accept
// "clientid" for ClientId, which a stricter decoder would not), that every operation returns no
// earlier than it is called, and prints one line:
// "ok N operations, M clients" (exit 0), or what is wrong (exit 1).
//
// Plain standard library, so that `go run main.go FILE` needs no module download.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
)

// Operation has the fields of porcupine.Operation, with their Go types: encoding/json matches
// JSON keys to these exported names, and an int64 field refuses a fraction or a string.
type Operation struct {
	ClientId int
	Input    interface{}
	Call     int64
	Output   interface{}
	Return   int64
	Metadata interface{}
	_        struct{}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: porcupine-check FILE")
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("cannot read: %v", err)
	}
	// Every key is the exact name of an exported field of Operation.
	names := map[string]bool{}
	kind := reflect.TypeOf(Operation{})
	for i := 0; i < kind.NumField(); i++ {
		if kind.Field(i).IsExported() {
			names[kind.Field(i).Name] = true
		}
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		fail("not a JSON array of objects: %v", err)
	}
	for i, op := range raw {
		for key := range op {
			if !names[key] {
				fail("operation %d: key %q is not a field of porcupine.Operation", i, key)
			}
		}
	}
	decoder := json.NewDecoder(bytes.NewReader(text))
	decoder.DisallowUnknownFields()
	var ops []Operation
	if err := decoder.Decode(&ops); err != nil {
		fail("does not decode into []porcupine.Operation: %v", err)
	}
	if _, err := decoder.Token(); err != io.EOF {
		fail("trailing data after the array")
	}
	clients := map[int]bool{}
	for i, op := range ops {
		if op.Call > op.Return {
			fail("operation %d: Call %d is after Return %d", i, op.Call, op.Return)
		}
		if op.ClientId < 0 {
			fail("operation %d: ClientId %d is negative (Porcupine's are zero-indexed)", i, op.ClientId)
		}
		if op.Input == nil {
			fail("operation %d: no Input", i)
		}
		clients[op.ClientId] = true
	}
	fmt.Printf("ok %d operations, %d clients\n", len(ops), len(clients))
}
