package catalog

import (
	"testing"
)

// BenchmarkLoadEmbedded measures reading the embedded tables, which every run pays once.
func BenchmarkLoadEmbedded(b *testing.B) {
	open := func(n string) []byte {
		data, err := dataFS.ReadFile("data/" + n)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	inst, prices, gpus, mig := open("instances.csv"), open("prices.csv"), open("gpus.csv"), open("mig.csv")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Load(bytesReader(inst), bytesReader(prices), bytesReader(gpus), bytesReader(mig)); err != nil {
			b.Fatal(err)
		}
	}
}
