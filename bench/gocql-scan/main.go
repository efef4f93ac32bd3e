// Full-table scan through gocql (Debian's golang-github-gocql-gocql-dev), for bench/arrow-twin.ts --gocql-scan:
// pages `SELECT * FROM bench.t` (k bigint, x, y double, i int, t text) with the given page size, decoding every row into typed Go values (what
// an application does), and prints one JSON line: {"rows": n, "ms": wall, "cpu_ms": this process's CPU}.
// Usage: gocql-scan <port> <page size> <repeat>. Built in GOPATH mode like test/gocql/main.go.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/gocql/gocql"
)

type run struct {
	Rows  int     `json:"rows"`
	Ms    float64 `json:"ms"`
	CPUMs float64 `json:"cpu_ms"`
}

func cpuMs() float64 {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e6
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: gocql-scan <port> <page size> <repeat>")
		os.Exit(2)
	}
	port, _ := strconv.Atoi(os.Args[1])
	pageSize, _ := strconv.Atoi(os.Args[2])
	repeat, _ := strconv.Atoi(os.Args[3])
	cluster := gocql.NewCluster("127.0.0.1")
	cluster.Port = port
	cluster.Timeout = 60 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.DisableInitialHostLookup = true
	session, err := cluster.CreateSession()
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	defer session.Close()
	var runs []run
	for r := 0; r < repeat; r++ {
		c0 := cpuMs()
		t0 := time.Now()
		iter := session.Query("SELECT * FROM bench.t").PageSize(pageSize).Iter()
		var (
			k    int64
			x, y float64
			i    int32
			t    string
			n    int
		)
		// SELECT * returns the key, then the regular columns by name: bind each by its name.
		byName := map[string]interface{}{"k": &k, "x": &x, "y": &y, "i": &i, "t": &t}
		dest := make([]interface{}, 0, 5)
		for _, c := range iter.Columns() {
			d, ok := byName[c.Name]
			if !ok {
				fmt.Fprintln(os.Stderr, "unexpected column", c.Name)
				os.Exit(1)
			}
			dest = append(dest, d)
		}
		for iter.Scan(dest...) {
			n++
		}
		if err := iter.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "scan:", err)
			os.Exit(1)
		}
		runs = append(runs, run{Rows: n, Ms: float64(time.Since(t0).Microseconds()) / 1000, CPUMs: cpuMs() - c0})
	}
	out, _ := json.Marshal(runs)
	fmt.Println(string(out))
}
