// Code generation for the provider's APIs. `make generate` builds the pinned
// generators into the tool cache and runs `go generate ./apis/...` with them on
// PATH; the outputs are committed and CI checks they are current.

// Remove existing CRDs so that renamed kinds leave nothing stale behind.
//go:generate rm -rf ../package/provider/crds

// Deepcopy methods and CRD manifests.
//go:generate controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../package/provider/crds

// crossplane-runtime method sets (resource.Managed and friends).
//go:generate env GOFLAGS=-tags=generate angryjet generate-methodsets --header-file=../hack/boilerplate.go.txt ./...

package apis
