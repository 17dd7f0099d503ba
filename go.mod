module github.com/sbxfuzz/sbxfuzz

go 1.26

require pgregory.net/rapid v1.3.0
