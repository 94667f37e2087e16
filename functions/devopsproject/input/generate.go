// Code generation for the function's input type: deepcopy and its CRD
// (package/function/input), run by `make generate`.

//go:generate rm -rf ../../../package/function/input
//go:generate controller-gen object:headerFile=../../../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../../../package/function/input

package input
