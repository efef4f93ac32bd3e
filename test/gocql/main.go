// gocql compatibility check for pmemcql: connects with gocql (Debian's 1.3.2) to 127.0.0.1:<port>,
// runs the features real Go applications use, once per connection profile (auto-negotiated protocol,
// v4, v4 with snappy), and prints one JSON line on stdout: {"checks":{"<profile>/<check>":"ok"|"<error>"},
// "info":{...}}. Exit code 0 only if every check passed. Standard library + gocql only, built in GOPATH
// mode against /usr/share/gocode (see test/gocql-driver.test.ts).
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

type result struct {
	Checks map[string]string      `json:"checks"`
	Probes map[string]string      `json:"probes"`
	Info   map[string]interface{} `json:"info"`
	mu     sync.Mutex
}

func (r *result) set(name, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Checks[name] = value
}

func (r *result) info(name string, value interface{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Info[name] = value
}

// captureLogger records what gocql logs (ring/metadata/connection problems surface only there).
type captureLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *captureLogger) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(s))
	fmt.Fprintln(os.Stderr, "gocql:", strings.TrimSpace(s))
}
func (l *captureLogger) Print(v ...interface{})                 { l.add(fmt.Sprint(v...)) }
func (l *captureLogger) Printf(format string, v ...interface{}) { l.add(fmt.Sprintf(format, v...)) }
func (l *captureLogger) Println(v ...interface{})               { l.add(fmt.Sprintln(v...)) }
func (l *captureLogger) matching(words ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		for _, w := range words {
			if strings.Contains(strings.ToLower(line), w) {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

// versionObserver remembers the protocol version of the frames the server sent.
type versionObserver struct {
	mu         sync.Mutex
	versions   map[int]bool
	compressed int // frames with the compression flag
}

func (o *versionObserver) ObserveFrameHeader(_ context.Context, h gocql.ObservedFrameHeader) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.versions[int(byte(h.Version)&0x7f)] = true
	if h.Flags&0x01 != 0 {
		o.compressed++
	}
}

func (o *versionObserver) list() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []int
	for v := range o.versions {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}

// hostObserver remembers the host that served the last query (for the token-ring check).
type hostObserver struct {
	mu   sync.Mutex
	host *gocql.HostInfo
}

func (o *hostObserver) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q.Host != nil {
		o.host = q.Host
	}
}

// traceCapture records the tracing session ids the server returns.
type traceCapture struct {
	mu  sync.Mutex
	ids [][]byte
}

func (t *traceCapture) Trace(id []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids = append(t.ids, append([]byte(nil), id...))
}

type address struct {
	Street string `cql:"street"`
	Zip    int    `cql:"zip"`
}

type profile struct {
	name       string
	proto      int
	compressor gocql.Compressor
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gocql-check <port> [host]")
		os.Exit(2)
	}
	port, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad port:", err)
		os.Exit(2)
	}
	host := "127.0.0.1"
	if len(os.Args) > 2 {
		host = os.Args[2]
	}
	res := &result{Checks: map[string]string{}, Probes: map[string]string{}, Info: map[string]interface{}{}}
	res.info("gocql_version", "1.3.2 (Debian golang-github-gocql-gocql-dev)")
	profiles := []profile{
		{"auto", 0, nil},
		{"v4", 4, nil},
		{"v4snappy", 4, gocql.SnappyCompressor{}},
		{"v3", 3, nil},
	}
	for _, p := range profiles {
		runProfile(res, host, port, p)
	}
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
	for _, v := range res.Checks {
		if v != "ok" {
			os.Exit(1)
		}
	}
}

// probe runs fn like check but records the outcome under "probes": known server gaps that are reported,
// not failed on.
func probe(res *result, name string, fn func() error) {
	defer func() {
		if p := recover(); p != nil {
			res.mu.Lock()
			res.Probes[name] = fmt.Sprintf("panic: %v", p)
			res.mu.Unlock()
		}
	}()
	outcome := "ok"
	if err := fn(); err != nil {
		outcome = err.Error()
	}
	res.mu.Lock()
	res.Probes[name] = outcome
	res.mu.Unlock()
}

// check runs fn and records "ok" or its error (a panic is an error too).
func check(res *result, name string, fn func() error) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			res.set(name, fmt.Sprintf("panic: %v", p))
			ok = false
		}
	}()
	start := time.Now()
	if err := fn(); err != nil {
		res.set(name, err.Error())
		fmt.Fprintf(os.Stderr, "FAIL %s (%s): %v\n", name, time.Since(start).Round(time.Millisecond), err)
		return false
	}
	fmt.Fprintf(os.Stderr, "ok %s (%s)\n", name, time.Since(start).Round(time.Millisecond))
	res.set(name, "ok")
	return true
}

func runProfile(res *result, host string, port int, p profile) {
	ks := "gocql_" + p.name
	c := func(n string) string { return p.name + "/" + n }
	logger := &captureLogger{}
	versions := &versionObserver{versions: map[int]bool{}}
	hosts := &hostObserver{}

	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.ProtoVersion = p.proto
	cluster.Compressor = p.compressor
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	cluster.NumConns = 1
	cluster.Logger = logger
	cluster.FrameHeaderObserver = versions
	cluster.QueryObserver = hosts
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cluster.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1, Interval: time.Second}

	var session *gocql.Session
	if !check(res, c("connect"), func() error {
		var err error
		session, err = cluster.CreateSession()
		return err
	}) {
		return
	}
	defer session.Close()

	check(res, c("protocol_version"), func() error {
		// A query so that there are frames on the pool connections too.
		if err := session.Query(`SELECT release_version FROM system.local WHERE key = 'local'`).Exec(); err != nil {
			return err
		}
		got := versions.list()
		res.info(p.name+"_protocol_versions", got)
		want := p.proto
		if want == 0 {
			want = 4 // gocql 1.3.2 speaks up to v4 and discovers the version starting there
		}
		if len(got) != 1 || got[0] != want {
			return fmt.Errorf("server frames had protocol versions %v, want only %d", got, want)
		}
		versions.mu.Lock()
		compressed := versions.compressed
		versions.mu.Unlock()
		res.info(p.name+"_compressed_frames", compressed)
		if p.compressor != nil && compressed == 0 {
			return errors.New("snappy was negotiated but the server sent no compressed frame")
		}
		if p.compressor == nil && compressed > 0 {
			return fmt.Errorf("%d compressed frames without compression", compressed)
		}
		return nil
	})

	check(res, c("system_local"), func() error {
		var release, partitioner, dc, clusterName string
		var hostID gocql.UUID
		var tokens []string
		err := session.Query(`SELECT release_version, partitioner, data_center, cluster_name, host_id, tokens
			FROM system.local WHERE key = 'local'`).Scan(&release, &partitioner, &dc, &clusterName, &hostID, &tokens)
		if err != nil {
			return err
		}
		res.info("release_version", release)
		res.info("partitioner", partitioner)
		res.info("data_center", dc)
		res.info("token_count", len(tokens))
		if !strings.HasSuffix(partitioner, "Murmur3Partitioner") {
			return fmt.Errorf("partitioner %q, want Murmur3Partitioner", partitioner)
		}
		if release == "" || dc == "" || clusterName == "" || len(tokens) == 0 {
			return fmt.Errorf("empty field: release_version=%q data_center=%q cluster_name=%q tokens=%d",
				release, dc, clusterName, len(tokens))
		}
		for _, t := range tokens {
			if _, err := strconv.ParseInt(t, 10, 64); err != nil {
				return fmt.Errorf("token %q is not a Murmur3 token: %v", t, err)
			}
		}
		var zero gocql.UUID
		if hostID == zero {
			return errors.New("host_id is null")
		}
		return nil
	})

	if !check(res, c("create_schema"), func() error {
		stmts := []string{
			`DROP KEYSPACE IF EXISTS ` + ks,
			`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
			`CREATE TYPE ` + ks + `.address (street text, zip int)`,
			`CREATE TABLE ` + ks + `.items (id int PRIMARY KEY, name text, uid uuid, ts timestamp, data blob,
				tags list<text>, attrs map<text, int>, nums set<int>, addr frozen<address>)`,
			`CREATE TABLE ` + ks + `.pages (pk int, ck int, v text, PRIMARY KEY (pk, ck))`,
			`CREATE TABLE ` + ks + `.counters (id text PRIMARY KEY, hits counter)`,
			`CREATE TABLE ` + ks + `.routed (a int, b text, c int, v text, PRIMARY KEY ((a, b), c))`,
			`CREATE TABLE ` + ks + `.extra (id int PRIMARY KEY, big bigint, dbl double, flt float, flag boolean,
				ip inet, vi varint, si smallint, ti tinyint, d date, t time, tu timeuuid, tup tuple<int, text>)`,
		}
		for _, s := range stmts {
			if err := session.Query(s).Exec(); err != nil {
				return fmt.Errorf("%s: %w", firstLine(s), err)
			}
		}
		return nil
	}) {
		return
	}

	check(res, c("schema_agreement"), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return session.AwaitSchemaAgreement(ctx)
	})

	uid := gocql.TimeUUID()
	ts := time.Date(2024, 5, 17, 12, 34, 56, 789_000_000, time.UTC)
	data := []byte{0, 1, 2, 0xfe, 0xff}
	tags := []string{"b", "a", "b"}
	attrs := map[string]int{"x": 1, "y": -2}
	nums := []int{3, 1, 2}
	addr := address{Street: "Main St", Zip: 12345}

	check(res, c("insert_prepared"), func() error {
		q := `INSERT INTO ` + ks + `.items (id, name, uid, ts, data, tags, attrs, nums, addr) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
		if err := session.Query(q, 1, "one", uid, ts, data, tags, attrs, nums, addr).Exec(); err != nil {
			return err
		}
		// nulls (gocql 1.3.2 cannot marshal an untyped nil into a UDT: a typed nil pointer is null)
		return session.Query(q, 2, "two", nil, nil, nil, nil, nil, nil, (*address)(nil)).Exec()
	})

	check(res, c("select_by_key"), func() error {
		var (
			name   string
			gotUID gocql.UUID
			gotTS  time.Time
			gotBl  []byte
			gotTg  []string
			gotAt  map[string]int
			gotNm  []int
			gotAd  address
		)
		err := session.Query(`SELECT name, uid, ts, data, tags, attrs, nums, addr FROM `+ks+`.items WHERE id = ?`, 1).
			Scan(&name, &gotUID, &gotTS, &gotBl, &gotTg, &gotAt, &gotNm, &gotAd)
		if err != nil {
			return err
		}
		var diffs []string
		cmp := func(what string, got, want interface{}) {
			if !reflect.DeepEqual(got, want) {
				diffs = append(diffs, fmt.Sprintf("%s: got %#v want %#v", what, got, want))
			}
		}
		cmp("name", name, "one")
		cmp("uid", gotUID, uid)
		cmp("ts", gotTS.UTC(), ts)
		cmp("data", gotBl, data)
		cmp("tags", gotTg, tags)
		cmp("attrs", gotAt, attrs)
		cmp("nums", gotNm, []int{1, 2, 3})
		cmp("addr", gotAd, addr)
		// the row with nulls, read back through MapScan
		m := map[string]interface{}{}
		if err := session.Query(`SELECT * FROM `+ks+`.items WHERE id = ?`, 2).MapScan(m); err != nil {
			return fmt.Errorf("MapScan of the row with nulls: %w", err)
		}
		cmp("row 2 name", m["name"], "two")
		if v, ok := m["tags"].([]string); !ok || len(v) != 0 {
			diffs = append(diffs, fmt.Sprintf("row 2 tags: got %#v, want empty []string", m["tags"]))
		}
		// missing key: ErrNotFound
		var n string
		if err := session.Query(`SELECT name FROM `+ks+`.items WHERE id = ?`, 99).Scan(&n); err != gocql.ErrNotFound {
			diffs = append(diffs, fmt.Sprintf("missing key: got err %v, want gocql.ErrNotFound", err))
		}
		if len(diffs) > 0 {
			return errors.New(strings.Join(diffs, "; "))
		}
		return nil
	})

	check(res, c("paging"), func() error {
		// 46 concurrent inserts (stream multiplexing on one connection; the server's group commit)
		errs := make(chan error, 46)
		for i := 0; i < 23; i++ {
			go func(i int) {
				errs <- session.Query(`INSERT INTO `+ks+`.pages (pk, ck, v) VALUES (?, ?, ?)`, 1, i, fmt.Sprint("v", i)).Exec()
			}(i)
			go func(i int) {
				errs <- session.Query(`INSERT INTO `+ks+`.pages (pk, ck, v) VALUES (?, ?, ?)`, 100+i, 0, fmt.Sprint("w", i)).Exec()
			}(i)
		}
		for i := 0; i < 46; i++ {
			if err := <-errs; err != nil {
				return fmt.Errorf("concurrent insert: %w", err)
			}
		}
		// one partition, 23 clustering rows: automatic paging
		iter := session.Query(`SELECT ck, v FROM `+ks+`.pages WHERE pk = ?`, 1).PageSize(5).Iter()
		var ck int
		var v string
		var cks []int
		for iter.Scan(&ck, &v) {
			if v != fmt.Sprint("v", ck) {
				return fmt.Errorf("row ck=%d has v=%q", ck, v)
			}
			cks = append(cks, ck)
		}
		if err := iter.Close(); err != nil {
			return fmt.Errorf("automatic paging: %w", err)
		}
		if len(cks) != 23 || !sort.IntsAreSorted(cks) || cks[0] != 0 || cks[22] != 22 {
			return fmt.Errorf("automatic paging returned %d rows %v, want ck 0..22 in order", len(cks), cks)
		}
		// manual paging with PageState: 5+5+5+5+3
		sizes, total, err := manualPages(session, `SELECT ck, v FROM `+ks+`.pages WHERE pk = ?`, 1)
		if err != nil {
			return fmt.Errorf("manual paging (one partition): %w", err)
		}
		if fmt.Sprint(sizes) != "[5 5 5 5 3]" || total != 23 {
			return fmt.Errorf("manual paging (one partition): page sizes %v, want [5 5 5 5 3]", sizes)
		}
		// a whole-table scan over 24 partitions (23 single-row ones + the one above): 46 rows
		sizes, total, err = manualPages(session, `SELECT pk, ck FROM `+ks+`.pages`)
		if err != nil {
			return fmt.Errorf("manual paging (table scan): %w", err)
		}
		if total != 46 {
			return fmt.Errorf("table scan paging: %d rows in pages %v, want 46", total, sizes)
		}
		for i, s := range sizes {
			if s > 5 || (s < 5 && i != len(sizes)-1) {
				return fmt.Errorf("table scan paging: page sizes %v, want pages of 5", sizes)
			}
		}
		return nil
	})

	check(res, c("batch"), func() error {
		b := session.NewBatch(gocql.LoggedBatch)
		for i := 10; i < 13; i++ {
			b.Query(`INSERT INTO `+ks+`.items (id, name, tags) VALUES (?, ?, ?)`, i, fmt.Sprint("batch", i), []string{"t"})
		}
		// (not id 12: batch statements share one timestamp, and on a tie Cassandra keeps the greater value)
		b.Query(`UPDATE ` + ks + `.items SET name = 'batch-updated' WHERE id = 14`)
		if err := session.ExecuteBatch(b); err != nil {
			return fmt.Errorf("logged batch: %w", err)
		}
		u := session.NewBatch(gocql.UnloggedBatch)
		u.Query(`INSERT INTO `+ks+`.items (id, name) VALUES (?, ?)`, 13, "unlogged")
		u.Query(`DELETE FROM `+ks+`.items WHERE id = ?`, 10)
		if err := session.ExecuteBatch(u); err != nil {
			return fmt.Errorf("unlogged batch: %w", err)
		}
		got := map[int]string{}
		iter := session.Query(`SELECT id, name FROM `+ks+`.items WHERE id IN (?, ?, ?, ?, ?)`, 10, 11, 12, 13, 14).Iter()
		var id int
		var name string
		for iter.Scan(&id, &name) {
			got[id] = name
		}
		if err := iter.Close(); err != nil {
			return err
		}
		want := map[int]string{11: "batch11", 12: "batch12", 13: "unlogged", 14: "batch-updated"}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("after batches got %v, want %v", got, want)
		}
		return nil
	})

	check(res, c("lwt"), func() error {
		q := `INSERT INTO ` + ks + `.items (id, name) VALUES (?, ?) IF NOT EXISTS`
		m := map[string]interface{}{}
		applied, err := session.Query(q, 50, "first").MapScanCAS(m)
		if err != nil {
			return fmt.Errorf("first IF NOT EXISTS: %w", err)
		}
		if !applied {
			return fmt.Errorf("first IF NOT EXISTS not applied (row %v)", m)
		}
		m = map[string]interface{}{}
		applied, err = session.Query(q, 50, "second").MapScanCAS(m)
		if err != nil {
			return fmt.Errorf("second IF NOT EXISTS: %w", err)
		}
		if applied {
			return errors.New("second IF NOT EXISTS was applied")
		}
		if m["name"] != "first" || m["id"] != 50 {
			return fmt.Errorf("second IF NOT EXISTS returned existing row %v, want id=50 name=first", m)
		}
		// conditional update, ScanCAS with the current value
		var cur string
		applied, err = session.Query(`UPDATE `+ks+`.items SET name = ? WHERE id = ? IF name = ?`, "third", 50, "nope").ScanCAS(&cur)
		if err != nil {
			return fmt.Errorf("UPDATE IF (not applied): %w", err)
		}
		if applied || cur != "first" {
			return fmt.Errorf("UPDATE IF name='nope': applied=%v current=%q, want false/first", applied, cur)
		}
		applied, err = session.Query(`UPDATE `+ks+`.items SET name = ? WHERE id = ? IF name = ?`, "third", 50, "first").ScanCAS()
		if err != nil {
			return fmt.Errorf("UPDATE IF (applied): %w", err)
		}
		if !applied {
			return errors.New("UPDATE IF name='first' not applied")
		}
		// explicit serial consistencies (the flag in QUERY/EXECUTE parameters)
		applied, err = session.Query(`UPDATE `+ks+`.items SET name = ? WHERE id = ? IF name = ?`, "third", 50, "third").
			SerialConsistency(gocql.Serial).ScanCAS()
		if err != nil || !applied {
			return fmt.Errorf("UPDATE IF with SERIAL: applied=%v err=%v", applied, err)
		}
		applied, err = session.Query(`UPDATE `+ks+`.items SET name = ? WHERE id = ? IF EXISTS`, "third", 50).
			SerialConsistency(gocql.LocalSerial).ScanCAS()
		if err != nil || !applied {
			return fmt.Errorf("UPDATE IF EXISTS with LOCAL_SERIAL: applied=%v err=%v", applied, err)
		}
		var name string
		if err := session.Query(`SELECT name FROM `+ks+`.items WHERE id = ?`, 50).Scan(&name); err != nil {
			return err
		}
		if name != "third" {
			return fmt.Errorf("after LWT name=%q, want third", name)
		}
		return nil
	})

	check(res, c("counter"), func() error {
		q := `UPDATE ` + ks + `.counters SET hits = hits + ? WHERE id = ?`
		if err := session.Query(q, 3, "page").Exec(); err != nil {
			return err
		}
		if err := session.Query(q, int64(4), "page").Exec(); err != nil {
			return err
		}
		if err := session.Query(`UPDATE ` + ks + `.counters SET hits = hits - 2 WHERE id = 'page'`).Exec(); err != nil {
			return err
		}
		var hits int64
		if err := session.Query(`SELECT hits FROM `+ks+`.counters WHERE id = ?`, "page").Scan(&hits); err != nil {
			return err
		}
		if hits != 5 {
			return fmt.Errorf("counter = %d, want 5", hits)
		}
		return nil
	})

	check(res, c("extra_types"), func() error {
		ip := net.ParseIP("10.1.2.3").To4()
		vi, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
		d := time.Date(2023, 2, 28, 0, 0, 0, 0, time.UTC)
		tm := 13*time.Hour + 14*time.Minute + 15*time.Second + 16*time.Nanosecond
		tu := gocql.TimeUUID()
		cols := []string{"id", "big", "dbl", "flt", "flag", "ip", "vi", "tu"}
		vals := []interface{}{1, int64(-9007199254740993), 3.25, float32(-1.5), true, ip, vi, tu}
		if p.proto != 3 {
			// smallint, tinyint, date and time came with v4; on v3 Cassandra describes them as custom types
			// (org.apache.cassandra.db.marshal.SimpleDateType, ...), which gocql cannot marshal
			cols = append(cols, "si", "ti", "d", "t")
			vals = append(vals, int16(-300), int8(-7), d, tm)
		}
		// a literal tuple: gocql 1.3.2 cannot bind a tuple column of a prepared statement (it counts the
		// tuple's elements as values but marshals them against the column list), with Cassandra too
		stmt := `INSERT INTO ` + ks + `.extra (` + strings.Join(cols, ", ") + `, tup) VALUES (` +
			strings.Repeat("?, ", len(cols)) + `(7, 'seven'))`
		if err := session.Query(stmt, vals...).Exec(); err != nil {
			return err
		}
		var (
			bigV  int64
			dbl   float64
			flt   float32
			flag  bool
			gotIP net.IP
			gotVI = new(big.Int)
			gotTU gocql.UUID
			tupI  int
			tupS  string
			si    int16
			ti    int8
			gotD  time.Time
			gotT  time.Duration
		)
		dest := []interface{}{&bigV, &dbl, &flt, &flag, &gotIP, gotVI, &gotTU}
		if p.proto != 3 {
			dest = append(dest, &si, &ti, &gotD, &gotT)
		}
		dest = append(dest, &tupI, &tupS) // gocql scans a tuple into one destination per element
		err := session.Query(`SELECT `+strings.Join(cols[1:], ", ")+`, tup FROM `+ks+`.extra WHERE id = ?`, 1).Scan(dest...)
		if err != nil {
			return err
		}
		got := fmt.Sprint(bigV, dbl, flt, flag, gotIP.String(), gotVI.String(), gotTU == tu, tupI, tupS)
		want := fmt.Sprint(int64(-9007199254740993), 3.25, float32(-1.5), true, "10.1.2.3", vi.String(), true, 7, "seven")
		if p.proto != 3 {
			got += fmt.Sprint(" ", si, ti, gotD.UTC().Format("2006-01-02"), gotT)
			want += fmt.Sprint(" ", -300, -7, "2023-02-28", tm)
		}
		if got != want {
			return fmt.Errorf("got %s, want %s", got, want)
		}
		return nil
	})

	check(res, c("unset_timestamp_ttl"), func() error {
		// UNSET (v4+) leaves the column alone; an explicit client timestamp must be the cell's WRITETIME;
		// USING TTL must show in TTL().
		q := `INSERT INTO ` + ks + `.items (id, name, tags) VALUES (?, ?, ?)`
		if err := session.Query(q, 60, "keep", []string{"a"}).WithTimestamp(1_000_000).Exec(); err != nil {
			return err
		}
		if p.proto >= 4 {
			if err := session.Query(q, 60, gocql.UnsetValue, []string{"b"}).WithTimestamp(2_000_000).Exec(); err != nil {
				return fmt.Errorf("insert with UnsetValue: %w", err)
			}
		} else {
			if err := session.Query(`UPDATE `+ks+`.items USING TIMESTAMP 2000000 SET tags = ? WHERE id = ?`, []string{"b"}, 60).Exec(); err != nil {
				return err
			}
		}
		var name string
		var tags []string
		var wtName int64
		err := session.Query(`SELECT name, tags, WRITETIME(name) FROM `+ks+`.items WHERE id = ?`, 60).Scan(&name, &tags, &wtName)
		if err != nil {
			return err
		}
		if name != "keep" || fmt.Sprint(tags) != "[b]" || wtName != 1_000_000 {
			return fmt.Errorf("got name=%q tags=%v writetime(name)=%d, want keep [b] 1000000", name, tags, wtName)
		}
		// an older timestamp loses
		if err := session.Query(`UPDATE `+ks+`.items SET name = ? WHERE id = ?`, "older", 60).WithTimestamp(500_000).Exec(); err != nil {
			return err
		}
		if err := session.Query(`INSERT INTO `+ks+`.items (id, name) VALUES (?, ?) USING TTL ?`, 61, "ttl", 3600).Exec(); err != nil {
			return fmt.Errorf("USING TTL ?: %w", err)
		}
		var ttl int
		if err := session.Query(`SELECT name, TTL(name) FROM `+ks+`.items WHERE id = ?`, 61).Scan(&name, &ttl); err != nil {
			return err
		}
		if name != "ttl" || ttl <= 3500 || ttl > 3600 {
			return fmt.Errorf("TTL(name) = %d for %q, want ~3600", ttl, name)
		}
		if err := session.Query(`SELECT name FROM `+ks+`.items WHERE id = ?`, 60).Scan(&name); err != nil {
			return err
		}
		if name != "keep" {
			return fmt.Errorf("a write with an older client timestamp won: name=%q", name)
		}
		return nil
	})

	check(res, c("large_value"), func() error {
		// 1 MiB of compressible text and 300 kB of incompressible bytes in one row (multi-frame sizes, snappy)
		text := strings.Repeat("gocql large value ", 1<<16)
		blob := make([]byte, 300_000)
		x := uint32(2463534242)
		for i := range blob {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			blob[i] = byte(x)
		}
		if err := session.Query(`INSERT INTO `+ks+`.items (id, name, data) VALUES (?, ?, ?)`, 70, text, blob).Exec(); err != nil {
			return err
		}
		var gotText string
		var gotBlob []byte
		if err := session.Query(`SELECT name, data FROM `+ks+`.items WHERE id = ?`, 70).Scan(&gotText, &gotBlob); err != nil {
			return err
		}
		if gotText != text || !bytes.Equal(gotBlob, blob) {
			return fmt.Errorf("round trip changed the values: text %d/%d bytes, blob %d/%d bytes",
				len(gotText), len(text), len(gotBlob), len(blob))
		}
		return nil
	})

	// Conditional batch: [applied] rows, all-or-nothing.
	check(res, c("lwt_batch"), func() error {
		b := session.NewBatch(gocql.LoggedBatch)
		b.SerialConsistency(gocql.LocalSerial)
		b.Query(`INSERT INTO `+ks+`.pages (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS`, 500, 1, "a")
		b.Query(`INSERT INTO `+ks+`.pages (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS`, 500, 2, "b")
		m := map[string]interface{}{}
		applied, iter, err := session.MapExecuteBatchCAS(b, m)
		if err == gocql.ErrNotFound {
			return errors.New("first conditional batch: the server answered VOID, not an [applied] row (gocql: not found)")
		} else if err != nil {
			return fmt.Errorf("first conditional batch: %w", err)
		}
		_ = iter.Close()
		if !applied {
			return fmt.Errorf("first conditional batch not applied: %v", m)
		}
		b = session.NewBatch(gocql.LoggedBatch)
		b.Query(`INSERT INTO `+ks+`.pages (pk, ck, v) VALUES (?, ?, ?) IF NOT EXISTS`, 500, 1, "c")
		m = map[string]interface{}{}
		applied, iter, err = session.MapExecuteBatchCAS(b, m)
		if err != nil {
			return fmt.Errorf("second conditional batch: %w", err)
		}
		_ = iter.Close()
		if applied || m["v"] != "a" {
			return fmt.Errorf("second conditional batch: applied=%v row=%v, want not applied with v=a", applied, m)
		}
		var v string
		if err := session.Query(`SELECT v FROM `+ks+`.pages WHERE pk = ? AND ck = ?`, 500, 1).Scan(&v); err != nil || v != "a" {
			return fmt.Errorf("after the conditional batches v=%q (err %v), want a", v, err)
		}
		return nil
	})

	check(res, c("tracing"), func() error {
		tc := &traceCapture{}
		if err := session.Query(`SELECT name FROM `+ks+`.items WHERE id = ?`, 1).Trace(tc).Exec(); err != nil {
			return err
		}
		tc.mu.Lock()
		ids := tc.ids
		tc.mu.Unlock()
		if len(ids) != 1 || len(ids[0]) != 16 {
			return fmt.Errorf("traced query returned tracing ids %x, want one 16-byte session id", ids)
		}
		// the session row may be written a little after the response (as in Cassandra)
		var lastErr error
		for i := 0; i < 20; i++ {
			var coordinator net.IP
			var duration int
			lastErr = session.Query(`SELECT coordinator, duration FROM system_traces.sessions WHERE session_id = ?`,
				gocql.UUID(toUUID(ids[0]))).Scan(&coordinator, &duration)
			if lastErr == nil {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("system_traces.sessions for %x: %w", ids[0], lastErr)
	})

	check(res, c("tuple_literal_with_bind_markers"), func() error {
		if err := session.Query(`INSERT INTO `+ks+`.extra (id, tup) VALUES (?, (?, ?))`, 2, 8, "eight").Exec(); err != nil {
			return err
		}
		var i int
		var s string
		if err := session.Query(`SELECT tup FROM `+ks+`.extra WHERE id = ?`, 2).Scan(&i, &s); err != nil {
			return err
		}
		if i != 8 || s != "eight" {
			return fmt.Errorf("tuple read back as (%d, %q)", i, s)
		}
		return nil
	})

	check(res, c("error_codes"), func() error {
		err := session.Query(`SELECT * FROM ` + ks + `.no_such_table`).Exec()
		var reqErr gocql.RequestError
		if !errors.As(err, &reqErr) || reqErr.Code() != gocql.ErrCodeInvalid {
			return fmt.Errorf("unknown table: got %T %v, want RequestError with code 0x2200", err, err)
		}
		err = session.Query(`SELEKT 1`).Exec()
		if !errors.As(err, &reqErr) || reqErr.Code() != gocql.ErrCodeSyntax {
			return fmt.Errorf("syntax error: got %T %v, want RequestError with code 0x2000", err, err)
		}
		err = session.Query(`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).Exec()
		var exists *gocql.RequestErrAlreadyExists
		if !errors.As(err, &exists) || exists.Keyspace != ks {
			return fmt.Errorf("duplicate keyspace: got %T %v, want *RequestErrAlreadyExists for %s", err, err, ks)
		}
		return nil
	})

	check(res, c("keyspace_metadata"), func() error {
		md, err := session.KeyspaceMetadata(ks)
		if err != nil {
			return err
		}
		var problems []string
		if !strings.HasSuffix(md.StrategyClass, "SimpleStrategy") {
			problems = append(problems, fmt.Sprintf("strategy class %q", md.StrategyClass))
		}
		for _, tn := range []string{"items", "pages", "counters", "routed", "extra"} {
			if md.Tables[tn] == nil {
				problems = append(problems, "missing table "+tn)
			}
		}
		if t := md.Tables["items"]; t != nil {
			for _, col := range []string{"id", "name", "uid", "ts", "data", "tags", "attrs", "nums", "addr"} {
				if t.Columns[col] == nil {
					problems = append(problems, "items: missing column "+col)
				}
			}
			if len(t.PartitionKey) != 1 || t.PartitionKey[0].Name != "id" {
				problems = append(problems, fmt.Sprintf("items partition key %v", colNames(t.PartitionKey)))
			}
			if col := t.Columns["attrs"]; col != nil && col.Type.Type() != gocql.TypeMap {
				problems = append(problems, fmt.Sprintf("items.attrs type %v", col.Type))
			}
			// gocql 1.3.2 parses UDT column types from system_schema as custom(): compare the type text
			if col := t.Columns["addr"]; col != nil && col.Validator != "frozen<address>" {
				problems = append(problems, fmt.Sprintf("items.addr type %q, want frozen<address>", col.Validator))
			}
		}
		if t := md.Tables["pages"]; t != nil {
			if len(t.ClusteringColumns) != 1 || t.ClusteringColumns[0].Name != "ck" {
				problems = append(problems, fmt.Sprintf("pages clustering %v", colNames(t.ClusteringColumns)))
			}
		}
		if t := md.Tables["routed"]; t != nil {
			if got := fmt.Sprint(colNames(t.PartitionKey)); got != "[a b]" {
				problems = append(problems, "routed partition key "+got)
			}
		}
		if ut := md.UserTypes["address"]; ut == nil {
			problems = append(problems, "missing user type address")
		} else if fmt.Sprint(ut.FieldNames) != "[street zip]" {
			problems = append(problems, fmt.Sprintf("address fields %v", ut.FieldNames))
		}
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	})

	check(res, c("token_aware_routing"), func() error {
		// PREPARE must return the partition-key bind indexes (v4): here a=2, b=1 in the bind order
		q := session.Query(`INSERT INTO `+ks+`.routed (c, b, a, v) VALUES (?, ?, ?, ?)`, 3, "bee", 42, "x")
		key, err := q.GetRoutingKey()
		if err != nil {
			return fmt.Errorf("GetRoutingKey: %w", err)
		}
		want := compositeKey(int32Bytes(42), []byte("bee"))
		if !bytes.Equal(key, want) {
			return fmt.Errorf("routing key %x, want %x (components a=42, b='bee')", key, want)
		}
		if err := q.Exec(); err != nil {
			return err
		}
		// the client-side token (what the policy routes by) must equal the server's token()
		var serverToken int64
		if err := session.Query(`SELECT token(a, b) FROM `+ks+`.routed WHERE a = ? AND b = ?`, 42, "bee").Scan(&serverToken); err != nil {
			return fmt.Errorf("SELECT token(a, b): %w", err)
		}
		if clientToken := murmur3H1(key); clientToken != serverToken {
			return fmt.Errorf("client Murmur3 token %d != server token(a, b) %d", clientToken, serverToken)
		}
		// the ring the policy built from system.local: partitioner and tokens of the host that served us
		hosts.mu.Lock()
		h := hosts.host
		hosts.mu.Unlock()
		if h == nil {
			return errors.New("no host observed")
		}
		if !strings.HasSuffix(h.Partitioner(), "Murmur3Partitioner") || len(h.Tokens()) == 0 {
			return fmt.Errorf("host %s: partitioner %q, %d tokens", h.ConnectAddress(), h.Partitioner(), len(h.Tokens()))
		}
		if bad := logger.matching("token ring", "unable to", "unsupported strategy", "replication"); len(bad) > 0 {
			return fmt.Errorf("gocql logged: %s", strings.Join(bad, " | "))
		}
		return nil
	})

	check(res, c("drop_keyspace"), func() error {
		return session.Query(`DROP KEYSPACE ` + ks).Exec()
	})

	if lines := logger.matching("error", "fail", "unable"); len(lines) > 0 {
		res.info(p.name+"_log", lines)
	}
}

func manualPages(session *gocql.Session, stmt string, values ...interface{}) ([]int, int, error) {
	var state []byte
	var sizes []int
	total := 0
	for page := 0; page < 100; page++ {
		iter := session.Query(stmt, values...).PageSize(5).PageState(state).Iter()
		n := iter.NumRows()
		next := iter.PageState()
		if err := iter.Close(); err != nil {
			return sizes, total, err
		}
		sizes = append(sizes, n)
		total += n
		if len(next) == 0 {
			return sizes, total, nil
		}
		state = next
	}
	return sizes, total, fmt.Errorf("more than 100 pages: %v", sizes)
}

func toUUID(b []byte) (u [16]byte) {
	copy(u[:], b)
	return u
}

func colNames(cols []*gocql.ColumnMetadata) []string {
	var out []string
	for _, c := range cols {
		out = append(out, c.Name)
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func int32Bytes(v int32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(v))
	return b
}

// compositeKey is Cassandra's CompositeType encoding of a multi-column partition key.
func compositeKey(parts ...[]byte) []byte {
	var buf bytes.Buffer
	for _, p := range parts {
		_ = binary.Write(&buf, binary.BigEndian, uint16(len(p)))
		buf.Write(p)
		buf.WriteByte(0)
	}
	return buf.Bytes()
}

// murmur3H1 is Cassandra's Murmur3Partitioner token: the first 64 bits of x64 128-bit MurmurHash3,
// with Cassandra's sign-extended tail bytes (same as gocql's internal/murmur, which is not importable).
func murmur3H1(data []byte) int64 {
	const c1, c2 = uint64(0x87c37b91114253d5), uint64(0x4cf5ad432745937f)
	rotl := func(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }
	fmix := func(k uint64) uint64 {
		k ^= k >> 33
		k *= 0xff51afd7ed558ccd
		k ^= k >> 33
		k *= 0xc4ceb9fe1a85ec53
		k ^= k >> 33
		return k
	}
	var h1, h2 uint64
	n := len(data)
	nBlocks := n / 16
	for i := 0; i < nBlocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		k1 *= c1
		k1 = rotl(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = rotl(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = rotl(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = rotl(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[nBlocks*16:]
	var k1, k2 uint64
	sx := func(b byte) uint64 { return uint64(int64(int8(b))) }
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= sx(tail[i]) << (8 * uint(i-8))
	}
	if len(tail) > 8 {
		k2 *= c2
		k2 = rotl(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= sx(tail[i]) << (8 * uint(i))
	}
	if len(tail) > 0 {
		k1 *= c1
		k1 = rotl(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix(h1)
	h2 = fmix(h2)
	h1 += h2
	return int64(h1)
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
