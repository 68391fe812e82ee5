// Package dnn holds the neural-network workloads, built on one small
// tensor framework (dnn.go): the DNN workloads OASIS trains (i2c, c2d,
// lenet, vgg16, resnet18) as MGPUSim runs them, on its gputensor
// operators and layers (operator.go, layers.go, models.go), and Tango's
// batched inference networks as ObservUVM and SUV run them (alexnet,
// squeezenet; inference.go).
package dnn
