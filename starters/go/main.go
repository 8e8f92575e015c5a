// A starter job store for jobcheck in Go (standard library only): it speaks the protocol
// (docs/protocol.md) and implements `submit`; every other command still answers "not implemented".
// Build it and run it against the model with
//
//	go build -o jobstore . && npx --no-install jobcheck check --impl "./jobstore"
//
// and implement what the first failure story names (README.md says what comes next).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
)

// obj is a JSON object. Messages are decoded with UseNumber, so numbers stay exact (json.Number,
// written back as the same digits) instead of becoming float64.
type obj = map[string]any

// The store's whole state, shaped exactly like the snapshot the harness compares after every command.
var state obj

// num reads a number of the state or of a message.
func num(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

func refuse(code, message string) obj { return obj{"ok": false, "code": code, "message": message} }

func submit(c obj) obj {
	now, clock := num(c["now"]), num(state["clock"])
	if now < clock { // [clock-never-regresses]: a command from the past changes nothing
		return refuse("clock_regressed", fmt.Sprintf("now: %d is before the clock (%d)", now, clock))
	}
	state["clock"] = now
	id, jobs := c["id"].(string), state["jobs"].(obj)
	payload := obj{"account": c["account"], "key": c["key"], "amount": c["amount"], "deadline": c["deadline"]}
	if job, ok := jobs[id].(obj); ok { // same id: a duplicate if the payload is equal, else a conflict
		if !reflect.DeepEqual(job["payload"], payload) {
			return refuse("conflict", fmt.Sprintf("job %q already exists with another payload", id))
		}
		return obj{"ok": true, "type": "submit", "id": id, "seq": job["seq"], "duplicate": true}
	}
	unresolved := int64(0) // [capacity-counts-running]: ready, waiting and running jobs all count
	for _, j := range jobs {
		switch j.(obj)["status"] {
		case "ready", "waiting", "running":
			unresolved++
		}
	}
	if unresolved >= num(state["config"].(obj)["capacity"]) {
		return refuse("capacity_exceeded", fmt.Sprintf("the store holds %d unresolved jobs", unresolved))
	}
	seq := num(state["nextSeq"])
	state["nextSeq"] = seq + 1
	jobs[id] = obj{"payload": payload, "seq": seq, "status": "ready", "attempts": 0}
	return obj{"ok": true, "type": "submit", "id": id, "seq": seq, "duplicate": false}
}

// execute runs a command of the contract (docs/contract.md, section 7).
func execute(c obj) obj {
	if c["type"] == "submit" {
		return submit(c)
	}
	return refuse("invalid_argument", fmt.Sprintf("not implemented yet: %v", c["type"])) // claim, commit, ack, fail, tick
}

func handle(m obj) obj {
	if p := m["protocol"]; m["type"] == "hello" { // (re)start an empty store with this config
		if p != "jobcheck/1" && p != "jobcheck/2" {
			return refuse("unsupported_protocol", "this starter speaks jobcheck/1 and jobcheck/2")
		}
		state = obj{"format": "jobcheck.snapshot/1", "config": m["config"], "clock": int64(0), "nextToken": int64(1),
			"nextSeq": int64(1), "jobs": obj{}, "balances": obj{}, "effects": obj{}}
		r := obj{"ok": true, "type": "hello", "protocol": p, "implementation": "go-starter"}
		if p == "jobcheck/2" {
			r["concurrent"] = false // commands come in envelopes, but one at a time
		}
		return r
	}
	if state == nil {
		return refuse("invalid_argument", "send hello first")
	}
	switch m["type"] {
	case "snapshot":
		return obj{"ok": true, "type": "snapshot", "snapshot": state}
	case "restore": // a restart: the state is exactly the snapshot the previous process gave
		state, _ = m["snapshot"].(obj)
		return obj{"ok": true, "type": "restore"}
	case "request": // jobcheck/2: a command in an envelope, answered in an envelope with its id
		command, _ := m["command"].(obj)
		return obj{"type": "reply", "id": m["id"], "reply": execute(command)}
	}
	return execute(m)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20) // a restore line can be long
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() { // one request per line, one reply per line
		var message obj
		decoder := json.NewDecoder(bytes.NewReader(in.Bytes()))
		decoder.UseNumber()
		reply := refuse("invalid_argument", "not a JSON object")
		if decoder.Decode(&message) == nil {
			reply = handle(message)
		}
		line, _ := json.Marshal(reply)
		out.Write(append(line, '\n'))
		// Flush after every reply: a buffered reply sits in this process, and the harness, waiting
		// for it, reports a timeout.
		out.Flush()
	}
}
