package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Resource types gpuguard does not price are warnings when they name a GPU machine type as a
// literal, at the attribute's line; CPU types, values from variables, launch templates and
// resource names that look like machine types are not.
func TestUnpricedGPUTypesAreWarnings(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "terraform", "unpriced_types", "main.tf")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := ParseSource("main.tf", src, Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 0 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.Message)
	}
	want := []string{
		"aws_gamelift_fleet.render: ec2_instance_type is GPU type g4dn.2xlarge, but gpuguard does not price aws_gamelift_fleet: its GPUs are not counted",
		"azurerm_dev_test_linux_virtual_machine.lab: size is GPU type Standard_NC6s_v3, but gpuguard does not price azurerm_dev_test_linux_virtual_machine: its GPUs are not counted",
		"google_colab_runtime_template.ml: machine_spec.accelerator_type is GPU type NVIDIA_TESLA_T4, but gpuguard does not price google_colab_runtime_template: its GPUs are not counted",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Warnings[0].Line != 18 {
		t.Errorf("the warning is at the instance type's line: %d", res.Warnings[0].Line)
	}

	// JSON configuration: nested blocks are objects.
	js := `{"resource": {"aws_gamelift_fleet": {"gpu": {"build_id": "b-1", "ec2_instance_type": "p3.2xlarge"}}}}`
	res = ParseSource("main.tf.json", []byte(js), Options{})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "aws_gamelift_fleet.gpu: ec2_instance_type is GPU type p3.2xlarge") {
		t.Fatalf("JSON: %+v", res.Warnings)
	}
}

// A module gpuguard does not follow says which GPU type its inputs name, from a literal, a
// variable or deep inside an object; one whose inputs name none, or name one only through
// count.index, keeps the plain warning.
func TestModuleNotFollowedNamesItsGPUType(t *testing.T) {
	src := `variable "gpu_type" {
  default = "p5.48xlarge"
}

module "node_group" {
  source         = "umotif-public/eks-node-group/aws"
  name           = "gpu"
  instance_types = ["m6i.large", "g5.12xlarge"]
}

module "own" {
  source      = "git::https://github.com/acme/gpu.git"
  node_groups = { train = { instance_type = var.gpu_type, disk = local.missing } }
}

module "vm" {
  source = "Azure/virtual-machine/azurerm"
  size   = "Standard_NC24ads_A100_v4"
}

module "db" {
  source         = "terraform-aws-modules/rds/aws"
  instance_class = "db.r6g.large"
}

module "counted" {
  source        = "acme/gpu/aws"
  count         = 2
  instance_type = ["g5.xlarge", "g5.2xlarge"][count.index]
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := map[int]string{
		5:  "resources inside it are not counted, and its input instance_types (line 8) names GPU type g5.12xlarge: those GPUs are missing from the total",
		11: "resources inside it are not counted, and its input node_groups.train.instance_type (line 13) names GPU type p5.48xlarge: those GPUs are missing from the total",
		16: "resources inside it are not counted, and its input size (line 18) names GPU type Standard_NC24ads_A100_v4: those GPUs are missing from the total",
		21: "resources inside it are not counted",
		26: "resources inside it are not counted",
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %+v", res.Warnings)
	}
	for _, w := range res.Warnings {
		suffix, ok := want[w.Line]
		if !ok || !strings.HasSuffix(w.Message, suffix) || !strings.Contains(w.Message, "is not followed") {
			t.Errorf("line %d: %q, want it to end %q", w.Line, w.Message, suffix)
		}
	}
}

// The networking, identity, storage and key modules nearly every GPU configuration calls
// declare no machines: a call to one is not followed, as any registry module terraform init did
// not download, but without the warning that its resources are not counted, and what reads its
// outputs is still evaluated. One whose inputs name a GPU type still warns.
func TestMachineFreeModulesAreQuiet(t *testing.T) {
	src := `provider "aws" { region = "us-east-1" }
module "karpenter" {
  source       = "terraform-aws-modules/eks/aws//modules/karpenter"
  version      = "~> 20.0"
  cluster_name = "ml"
}
module "irsa" {
  source    = "git::https://github.com/terraform-aws-modules/terraform-aws-iam.git//modules/iam-role-for-service-accounts-eks?ref=v5.30.0"
  role_name = "trainer"
}
module "checkpoints" {
  source  = "registry.terraform.io/terraform-aws-modules/s3-bucket/aws"
  version = "4.1.0"
  bucket  = "ml-checkpoints"
}
module "net" {
  source       = "terraform-google-modules/network/google//modules/subnets"
  project_id   = "p"
  network_name = "ml"
}
module "vnet" {
  source        = "Azure/avm-res-network-virtualnetwork/azurerm"
  address_space = ["10.0.0.0/16"]
}
module "gpu_sg" {
  source        = "terraform-aws-modules/security-group/aws"
  name          = "gpu"
  instance_type = "p5.48xlarge"
}
resource "aws_instance" "trainer" {
  instance_type        = "g6.xlarge"
  ami                  = "ami-1"
  iam_instance_profile = module.irsa.iam_role_name
  tags                 = { queue = module.karpenter.queue_name }
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 1 || res.Resources[0].InstanceType != "g6.xlarge" {
		t.Fatalf("errors %v, resources %+v", res.Errors, res.Resources)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 25 ||
		!strings.HasSuffix(res.Warnings[0].Message, "its input instance_type (line 28) names GPU type p5.48xlarge: those GPUs are missing from the total") {
		t.Errorf("warnings %v, want one, for module gpu_sg", res.Warnings)
	}
}

// DeclaresNoMachines takes a module in any spelling of its source, and a submodule only where
// the whole module declares none or the submodule is listed.
func TestDeclaresNoMachines(t *testing.T) {
	for src, want := range map[string]bool{
		"terraform-aws-modules/iam/aws":                             true,
		"terraform-aws-modules/iam/aws//modules/iam-assumable-role": true,
		"git::https://github.com/terraform-aws-modules/terraform-aws-iam.git//modules/iam-role-for-service-accounts-eks?ref=v5": true,
		"tfr:///terraform-aws-modules/eks/aws//modules/karpenter?version=20.8.5":                                                true,
		"terraform-aws-modules/eks/aws":                                                false,
		"terraform-aws-modules/eks/aws//modules/eks-managed-node-group":                false,
		"terraform-aws-modules/kms/aws":                                                true,
		"terraform-aws-modules/kms/aws//modules/other":                                 false,
		"terraform-google-modules/kubernetes-engine/google//modules/workload-identity": true,
		"terraform-google-modules/kubernetes-engine/google//modules/private-cluster":   false,
		"Azure/avm-res-network-virtualnetwork/azurerm//modules/subnet":                 true,
		"Azure/avm-res-compute-virtualmachine/azurerm":                                 false,
		"./modules/iam": false,
		"":              false,
	} {
		if got := DeclaresNoMachines(src); got != want {
			t.Errorf("DeclaresNoMachines(%q) = %v, want %v", src, got, want)
		}
	}
}
