// Package dnn holds the neural-network workloads, built on one small
// tensor-operator framework (dnn.go): DNN-Mark's layers and networks as
// the OASIS paper trains them (i2c, c2d, lenet, vgg16, resnet18), and
// Tango's batched inference networks as ObservUVM and SUV run them
// (alexnet, squeezenet).
package dnn
