package svgchart_test

import (
	"os"

	"github.com/gwist/gwist/benchmarks/internal/svgchart"
)

func ExampleChart_Render() {
	c := svgchart.Chart{
		Title: "gwist vs best peer",
		Bars:  []svgchart.Bar{{Label: "plaintext", Value: 1.8}, {Label: "https churn", Value: 6.1}},
	}
	f, err := os.CreateTemp("", "chart*.svg")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	if err := c.Render(f); err != nil {
		panic(err)
	}
	f.Close()
	// Output:
}
