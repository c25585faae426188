package chartvalues_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cozystack/kubernetes-worker-image/internal/chartvalues"
)

type named struct{ Name string }

// TestMap: Helm's own maps and any Go map with string keys are maps;
// nothing else is.
func TestMap(t *testing.T) {
	cases := map[string]struct {
		reason string
		v      any
		want   map[string]any
		ok     bool
	}{
		"helm":           {"Helm's own map, as it is", map[string]any{"a": 1.0}, map[string]any{"a": 1.0}, true},
		"strings":        {"a Go caller's map[string]string", map[string]string{"cpu": "2"}, map[string]any{"cpu": "2"}, true},
		"nested":         {"a map of maps; the inner map is read when it is reached", map[string]map[string]any{"md0": {"x": 1}}, map[string]any{"md0": map[string]any{"x": 1}}, true},
		"empty":          {"an empty map is a map", map[string]int{}, map[string]any{}, true},
		"int keys":       {"a map without string keys is no chart map", map[int]string{1: "a"}, nil, false},
		"list":           {"a list is no map", []any{"a"}, nil, false},
		"string":         {"a string is no map", "a: b", nil, false},
		"struct":         {"a struct is no map, whatever its fields", named{Name: "a"}, nil, false},
		"nil":            {"null is no map", nil, nil, false},
		"pointer of map": {"a pointer is not followed", &map[string]any{}, nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := chartvalues.Map(tc.v)
			assert.Equal(t, tc.ok, ok, tc.reason)
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

// TestList: Helm's own lists and any Go slice or array are lists; a []byte
// is a string to a template.
func TestList(t *testing.T) {
	cases := map[string]struct {
		reason string
		v      any
		want   []any
		ok     bool
	}{
		"helm":    {"Helm's own list, as it is", []any{"a", 1.0}, []any{"a", 1.0}, true},
		"strings": {"a Go caller's []string", []string{"ingress-nginx", "worker"}, []any{"ingress-nginx", "worker"}, true},
		"maps":    {"a slice of maps", []map[string]string{{"name": "gpu"}}, []any{map[string]string{"name": "gpu"}}, true},
		"array":   {"an array is a list", [2]int{1, 2}, []any{1, 2}, true},
		"empty":   {"an empty slice is a list", []string{}, []any{}, true},
		"bytes":   {"a []byte is text, not a list", []byte("abc"), nil, false},
		"string":  {"a string is no list", "[a]", nil, false},
		"map":     {"a map is no list", map[string]any{}, nil, false},
		"nil":     {"null is no list", nil, nil, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := chartvalues.List(tc.v)
			assert.Equal(t, tc.ok, ok, tc.reason)
			assert.Equal(t, tc.want, got, tc.reason)
		})
	}
}

// TestEmpty: what sprig's empty, and so Helm's default, treats as unset.
func TestEmpty(t *testing.T) {
	empty := map[string]any{
		"0":           0,
		"0.0":         0.0,
		"float32 0":   float32(0),
		"uint 0":      uint(0),
		"json 0":      json.Number("0"),
		"false":       false,
		`""`:          "",
		"nil":         nil,
		"[]":          []any{},
		"[]string{}":  []string{},
		"{}":          map[string]any{},
		"map{} typed": map[string]string{},
		"nil pointer": (*string)(nil),
	}
	set := map[string]any{
		`"0"`:       "0",
		"true":      true,
		`" "`:       " ",
		"1":         1,
		"-1":        -1.0,
		"0.5":       0.5,
		"json 1":    json.Number("1"),
		"[null]":    []any{nil},
		"{a: null}": map[string]any{"a": nil},
		`"false"`:   "false",
	}
	for name, v := range empty {
		assert.True(t, chartvalues.Empty(v), "%s is empty", name)
	}
	for name, v := range set {
		assert.False(t, chartvalues.Empty(v), "%s is not empty", name)
	}
}

// TestPrint: a scalar as a template prints it, and quote quotes it: Go's fmt
// for numbers and booleans (as the chart's renders were measured), a string as
// itself, null as nothing.
func TestPrint(t *testing.T) {
	cases := map[string]struct {
		v    any
		want string
	}{
		"float64 21474836480": {21474836480.0, "2.147483648e+10"},
		"float64 20":          {20.0, "20"},
		"float64 1.5":         {1.5, "1.5"},
		"float64 1000000":     {1e6, "1e+06"},
		"float64 123456":      {123456.0, "123456"},
		"float64 2^53+1":      {float64(9007199254740993), "9.007199254740992e+15"},
		"int 21474836480":     {21474836480, "2.147483648e+10"},
		"json.Number":         {json.Number("21474836480"), "2.147483648e+10"},
		"int 1000000":         {1000000, "1e+06"},
		"int 999999":          {999999, "999999"},
		"float32 1.1":         {float32(1.1), "1.1"},
		"true":                {true, "true"},
		"false":               {false, "false"},
		"string":              {"20Gi", "20Gi"},
		"nil":                 {nil, ""},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, chartvalues.Print(tc.v), name)
	}
}

// TestDecimal: a number in decimal, as resource.ParseQuantity reads an
// int-or-string; anything but a finite number is none.
func TestDecimal(t *testing.T) {
	cases := map[string]struct {
		v    any
		want string
		ok   bool
	}{
		"int":                 {3, "3", true},
		"int64":               {int64(-7), "-7", true},
		"uint8":               {uint8(1), "1", true},
		"uint64 max":          {uint64(math.MaxUint64), "18446744073709551615", true},
		"float64 21474836480": {21474836480.0, "21474836480", true},
		"float64 1.5":         {1.5, "1.5", true},
		"float32 0.1":         {float32(0.1), "0.1", true},
		"json.Number":         {json.Number("21474836481"), "21474836481", true},
		"json.Number bad":     {json.Number("x"), "", false},
		"NaN":                 {math.NaN(), "", false},
		"+Inf":                {math.Inf(1), "", false},
		"string":              {"20", "", false},
		"bool":                {true, "", false},
		"nil":                 {nil, "", false},
	}
	for name, tc := range cases {
		got, ok := chartvalues.Decimal(tc.v)
		assert.Equal(t, tc.ok, ok, name)
		assert.Equal(t, tc.want, got, name)
	}
}

// TestInteger: a whole number that fits an int64, whatever its Go type:
// YAML's 3 is float64 3.
func TestInteger(t *testing.T) {
	cases := map[string]struct {
		v    any
		want int64
		ok   bool
	}{
		"float64 3":         {3.0, 3, true},
		"int":               {3, 3, true},
		"negative":          {-1.0, -1, true},
		"json.Number":       {json.Number("3"), 3, true},
		"json.Number 3.0":   {json.Number("3.0"), 3, true},
		"float64 2.5":       {2.5, 0, false},
		"1e20":              {1e20, 0, false},
		"2^63":              {float64(math.MaxInt64), 0, false},
		"uint64 max":        {uint64(math.MaxUint64), 0, false},
		"string":            {"3", 0, false},
		"bool":              {true, 0, false},
		"NaN":               {math.NaN(), 0, false},
		"nil":               {nil, 0, false},
		"float64 big whole": {1e15, 1e15, true},
	}
	for name, tc := range cases {
		got, ok := chartvalues.Integer(tc.v)
		assert.Equal(t, tc.ok, ok, name)
		assert.Equal(t, tc.want, got, name)
	}
}

// TestKindAccepts: which values each kind takes; the items of Texts and
// Objects are checked one by one elsewhere.
func TestKindAccepts(t *testing.T) {
	cases := map[string]struct {
		kind chartvalues.Kind
		v    any
		want bool
	}{
		"Text string":          {chartvalues.Text, "a", true},
		"Text number":          {chartvalues.Text, 5.0, false},
		"Text bool":            {chartvalues.Text, true, false},
		"Text map":             {chartvalues.Text, map[string]any{}, false},
		"Text list":            {chartvalues.Text, []any{"a"}, false},
		"Text nil":             {chartvalues.Text, nil, false},
		"Quantity string":      {chartvalues.Quantity, "20Gi", true},
		"Quantity any string":  {chartvalues.Quantity, "20 Gi", true},
		"Quantity whole":       {chartvalues.Quantity, 20.0, true},
		"Quantity huge whole":  {chartvalues.Quantity, 1e300, true},
		"Quantity negative":    {chartvalues.Quantity, -5.0, true},
		"Quantity int":         {chartvalues.Quantity, 21474836480, true},
		"Quantity json.Number": {chartvalues.Quantity, json.Number("20"), true},
		"Quantity json 1e3":    {chartvalues.Quantity, json.Number("1e3"), true},
		"Quantity fraction":    {chartvalues.Quantity, 1.5, false},
		"Quantity json 0.5":    {chartvalues.Quantity, json.Number("0.5"), false},
		"Quantity bool":        {chartvalues.Quantity, true, false},
		"Quantity NaN":         {chartvalues.Quantity, math.NaN(), false},
		"Quantity nil":         {chartvalues.Quantity, nil, false},
		"Quantity map":         {chartvalues.Quantity, map[string]any{"a": 1}, false},
		"Whole float":          {chartvalues.Whole, 3.0, true},
		"Whole zero":           {chartvalues.Whole, 0, true},
		"Whole uint8":          {chartvalues.Whole, uint8(1), true},
		"Whole negative":       {chartvalues.Whole, -1.0, true},
		"Whole 1e21":           {chartvalues.Whole, 1e21, true},
		"Whole fraction":       {chartvalues.Whole, 2.5, false},
		"Whole string":         {chartvalues.Whole, "3", false},
		"Bool true":            {chartvalues.Bool, true, true},
		"Bool quoted":          {chartvalues.Bool, "true", false},
		"Bool number":          {chartvalues.Bool, 1.0, false},
		"Texts list":           {chartvalues.Texts, []any{"a"}, true},
		"Texts []string":       {chartvalues.Texts, []string{"a"}, true},
		"Texts of numbers":     {chartvalues.Texts, []any{1.0}, true},
		"Texts string":         {chartvalues.Texts, "a", false},
		"Texts bytes":          {chartvalues.Texts, []byte("a"), false},
		"Object map":           {chartvalues.Object, map[string]any{}, true},
		"Object typed map":     {chartvalues.Object, map[string]string{"a": "b"}, true},
		"Object list":          {chartvalues.Object, []any{}, false},
		"Object nil":           {chartvalues.Object, nil, false},
		"Objects list":         {chartvalues.Objects, []any{}, true},
		"Objects []map":        {chartvalues.Objects, []map[string]any{{}}, true},
		"Objects map":          {chartvalues.Objects, map[string]any{}, false},
		"unknown kind":         {chartvalues.Kind(99), "a", false},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, tc.kind.Accepts(tc.v), name)
	}
	for _, k := range []chartvalues.Kind{chartvalues.Text, chartvalues.Quantity, chartvalues.Whole, chartvalues.Bool,
		chartvalues.Texts, chartvalues.Object, chartvalues.Objects, chartvalues.Kind(99)} {
		assert.NotEmpty(t, k.String(), "kind %d has a name for messages", int(k))
	}
}

// TestDescribe: a value named as YAML names its type.
func TestDescribe(t *testing.T) {
	cases := map[string]struct {
		v    any
		want string
	}{
		"nil":     {nil, "null"},
		"string":  {"20Gi", `the string "20Gi"`},
		"bool":    {false, "the boolean false"},
		"number":  {21474836480.0, "the number 21474836480"},
		"map":     {map[string]string{}, "a map"},
		"list":    {[]string{}, "a list"},
		"channel": {make(chan int), "a chan int"},
	}
	for name, tc := range cases {
		assert.Equal(t, tc.want, chartvalues.Describe(tc.v), name)
	}
}

// TestIsQuantity: the values schemas' quantity pattern, which refuses
// before anything renders; it judges the spelling, not the value.
func TestIsQuantity(t *testing.T) {
	matches := []string{"20Gi", "20", "0", "-1Gi", "+20Gi", "1e3", "1E3", "1.5Gi", ".5", "5.", "500m", "1e1.5", "2.147483648e+10", "1e+21", "7Ei", "3n"}
	fails := []string{"", " 20Gi", "20Gi ", "20 Gi", "20GiB", "20gi", "Gi", "abc", "1.5.5Gi", "+-1", "20Gi\n", "\n20Gi", "0x10", "1e", ".", "١٢"}
	for _, s := range matches {
		assert.True(t, chartvalues.IsQuantity(s), "%q matches", s)
	}
	for _, s := range fails {
		assert.False(t, chartvalues.IsQuantity(s), "%q does not match", s)
	}
}
