package catalog

import (
	"strings"
	"testing"
)

// FuzzParseOverlay: any bytes give valid prices or an error; an accepted price always has a
// provider, a positive amount, a source and a date or the estimate mark.
func FuzzParseOverlay(f *testing.F) {
	header := "provider,instance_type,region,purchase_option,usd_per_hour,estimated,date,source,basis\n"
	for _, s := range []string{
		header + "aws,g6.xlarge,us-east-1,on_demand,0.8048,false,2026-07-20,AWS price list,\n",
		header + "gcp,a2-highgpu-1g,us-central1,spot,1.1,true,,\"estimate, spot ratio\",0.4 of on demand\n",
		header + "azure,Standard_NC24ads_A100_v4,East US,reserved_1y,2.5,false,2026-09-01,retail prices,\n",
		header + "aws,p5.48xlarge,us-east-1,on_demand,-1,false,2026-07-20,x,\n",
		`{"gpuguard_overlay": 1, "rows": [{"provider": "aws", "instance_type": "g6.xlarge", "region": "us-east-1", "purchase_option": "on_demand", "usd_per_hour": "0.8048", "date": "2026-07-20", "source": "AWS price list"}]}`,
		`{"gpuguard_overlay": 2, "rows": []}`,
		"provider,instance_type\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseOverlay(data)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		for _, p := range rows {
			if verr := p.validate(); verr != nil {
				t.Fatalf("accepted an invalid price %+v: %v", p, verr)
			}
		}
	})
}
